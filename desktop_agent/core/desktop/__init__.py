"""The desktop around the app: shortcut text, key auto-repeat, dictation's words, keysyms.

Pure.
"""

__all__ = ["dictation", "key_repeat", "keysyms", "shortcut", "tap_hold"]
