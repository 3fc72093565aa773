"""Real local servers and builders shared by the tests (fake GitHub, fake LLM, test books)."""
