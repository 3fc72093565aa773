"""Registering `lore mcp` with agent clients (Claude Code, Copilot, Cursor, VS Code, Codex)."""
