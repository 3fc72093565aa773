"""All SQL of the rules domain: projects, rules, sessions, served counts, trust overrides."""
