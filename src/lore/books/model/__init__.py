"""What a model reads out of a book: the extraction schema, the run, and the capped graph."""
