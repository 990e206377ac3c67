"""The desktop around the app: the control socket that reaches the running instance, the
global push-to-talk key on X11 (python-xlib) and through the desktop portal (jeepney), the
autostart entry, and the desktop tools (the sound volume through pactl, media players through
MPRIS), which start every child in the user's own environment."""

__all__ = ["autostart", "child_env", "desktop_tools", "instance_client", "instance_protocol",
           "key_thread", "media_mpris", "portal_bus", "portal_protocol", "portal_shortcuts",
           "volume_pactl", "x11_global_key"]
