"""The desktop around the app: the control socket that reaches the running instance."""

__all__ = ["instance_client", "instance_protocol"]
