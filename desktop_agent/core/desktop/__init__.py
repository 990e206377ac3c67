"""The desktop around the app: shortcut text, key auto-repeat, dictation's words. Pure."""

__all__ = ["dictation", "key_repeat", "shortcut", "tap_hold"]
