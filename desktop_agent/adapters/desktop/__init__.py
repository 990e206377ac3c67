"""The desktop around the app: the control socket that reaches the running instance, the
global push-to-talk key on X11 (python-xlib) and through the desktop portal (jeepney), the
autostart entry, and the desktop tools (the sound volume through pactl) with the user's
environment for every child they start."""

__all__ = ["autostart", "child_env", "desktop_tools", "instance_client", "instance_protocol",
           "key_thread", "portal_bus", "portal_protocol", "portal_shortcuts", "volume_pactl",
           "x11_global_key"]
