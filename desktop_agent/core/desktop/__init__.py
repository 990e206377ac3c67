"""The desktop around the app: global shortcut text, key auto-repeat, the volume tool's rules.
Pure, no X11 or sound server here."""

__all__ = ["key_repeat", "shortcut", "tap_hold", "volume"]
