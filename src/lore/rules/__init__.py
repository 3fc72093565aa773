"""Rules for coding agents: projects, rules, scopes, selection, screening, trust, sessions."""
