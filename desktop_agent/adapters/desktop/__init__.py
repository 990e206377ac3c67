"""The desktop around the app: the control socket that reaches the running instance, and the
global push-to-talk key on X11 (python-xlib)."""

__all__ = ["instance_client", "instance_protocol", "x11_global_key"]
