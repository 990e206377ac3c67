"""The desktop around the app: the control socket that reaches the running instance, the
global push-to-talk key on X11 (python-xlib) and through the desktop portal (jeepney), the
autostart entry, and the desktop tools (the sound volume through pactl, media players through
MPRIS, applications and places opened after a confirmed read-back, the selection and the
clipboard through xclip, text typed through XTest or, under Wayland, the portal's keyboard),
which start every child in the user's own environment."""

__all__ = ["autostart", "child_env", "clipboard_xclip", "desktop_desk", "desktop_tools",
           "instance_client", "instance_protocol", "key_thread", "launcher", "media_mpris",
           "portal_bus", "portal_keyboard", "portal_protocol", "portal_request",
           "portal_shortcuts", "volume_pactl", "x11_global_key", "x11_typing"]
