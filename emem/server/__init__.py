"""emem as a service: the operations (ops), an MCP server (mcp_app) and an HTTP API (http_app).
Needs the `server` extra: pip install 'emem[server]'."""
