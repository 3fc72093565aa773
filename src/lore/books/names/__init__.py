"""Names without a model: finding them, grouping short forms, where the text first gives each."""
