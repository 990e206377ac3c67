"""Your own tools: the user's MCP servers (the ``mcp`` SDK, imported only when one is set up).

The configuration files, the connections (started in the background, restarted with backoff,
stderr kept per server) and the desk that validates, reads back and runs their tools once.
"""

__all__ = ["mcp_client", "mcp_desk", "mcp_files"]
