"""Reading book files: EPUB, PDF and plain text into metadata and content chapters."""
