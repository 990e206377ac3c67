"""The desktop around the app: global shortcut text, key auto-repeat, and the rules of the
volume, media and open tools. Pure, no X11, sound server or D-Bus here."""

__all__ = ["key_repeat", "launch", "media", "shortcut", "tap_hold", "volume"]
