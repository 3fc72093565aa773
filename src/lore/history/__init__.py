"""Engineering history: a repository's commits, PRs, issues and discussion as a temporal graph."""
