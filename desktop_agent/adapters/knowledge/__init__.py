"""The user's documents: text out of files, and the SQLite index of passages."""

__all__ = [
    "doc_text",
    "knowledge_db",
    "knowledge_sqlite",
]
