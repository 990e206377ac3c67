"""The desktop around the app: global shortcut text, key auto-repeat. Pure, no X11 here."""

__all__ = ["key_repeat", "shortcut", "tap_hold"]
