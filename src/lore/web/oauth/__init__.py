"""OAuth 2.1 for the remote MCP connector: the provider the SDK's handlers call (`provider`),
the local user's consent page (`consent`), and listing and revoking what was granted (`grants`)."""
