"""Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) behind ``core.ports.Embedder``, and
fixed texts' vectors kept on disk."""

__all__ = [
    "embed_minilm",
    "vector_cache",
]
