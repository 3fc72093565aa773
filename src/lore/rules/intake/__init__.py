"""Candidate rules from files, code, reviews and documents: memorize, discover, learn, train."""
