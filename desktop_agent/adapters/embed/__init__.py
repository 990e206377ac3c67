"""Sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) behind ``core.ports.Embedder``."""

__all__ = [
    "embed_minilm",
]
