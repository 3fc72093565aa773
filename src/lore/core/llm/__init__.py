"""Language models for Lore: providers, structured output, the content-hash cache and accounting."""
