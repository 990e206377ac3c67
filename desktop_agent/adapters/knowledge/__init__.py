"""The user's documents: text out of files, and the SQLite index of passages and vectors."""

__all__ = [
    "doc_text",
    "knowledge_db",
    "knowledge_files",
    "knowledge_sqlite",
    "knowledge_vectors",
]
