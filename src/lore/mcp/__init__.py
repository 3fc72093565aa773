"""The MCP server: one server, tool groups per domain."""
