"""The `lore` command line: thin commands that call domain services and render the result."""
