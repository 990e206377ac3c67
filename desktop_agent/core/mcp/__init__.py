"""Your own tools through MCP servers (pure, stdlib only).

The configuration (``mcp.json`` and our choices in settings.toml), the retrieval that offers
a request at most three of the tools, and the rules that turn a server's tool into a read or
a confirmed write: its class, its read-back, the arguments the model is offered and the ones
pinned by the user.
"""

__all__ = ["config", "retrieval", "tools"]
