"""The desktop around the app: the control socket that reaches the running instance, the
global push-to-talk key on X11 (python-xlib) and through the desktop portal (jeepney), and the
autostart entry."""

__all__ = ["autostart", "instance_client", "instance_protocol", "key_thread", "portal_bus",
           "portal_protocol", "portal_shortcuts", "x11_global_key"]
