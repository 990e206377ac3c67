"""The assistant's own SQLite store, and what is kept beside it.

Notes, timers, reminders and the action log; the kept history; the settings file;
the built-in tools that run on the store.
"""

__all__ = [
    "history_store",
    "settings_store",
    "sqlite_files",
    "store_connection",
    "store_records",
    "store_sqlite",
    "tools_builtin",
    "write_desk",
]
