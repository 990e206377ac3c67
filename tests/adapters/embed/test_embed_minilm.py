"""all-MiniLM-L6-v2 (int8 ONNX) on the real installed model: meaning, exactness, edges.

The model and its tokenizer come from two packages (tests/adapters/models/test_model_extract.py
tests how the tokenizer is taken out of the second one); here the resolved files are loaded
by the real adapter and checked against references computed independently in the test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from desktop_agent.core.embed import ExampleIndex

pytestmark = pytest.mark.models

PARAPHRASES = [
    # (a, its paraphrase, something unrelated)
    ("remind me to call mum", "set a reminder to phone my mother",
     "what is the capital of France"),
    ("turn the volume down", "make it quieter please", "what is the weather tomorrow"),
    ("will it rain tomorrow", "what is the weather forecast for tomorrow",
     "open my documents folder"),
    ("set a timer for ten minutes", "start a ten minute countdown", "play some jazz music"),
    ("what time is it", "tell me the current time", "how do I bake bread"),
]
SENTENCES = [s for triple in PARAPHRASES for s in triple]


def test_a_paraphrase_is_nearer_than_an_unrelated_sentence(embedder) -> None:  # type: ignore[no-untyped-def]
    for a, same, other in PARAPHRASES:
        va, vs, vo = embedder.embed([a, same, other])
        close, far = float(va @ vs), max(float(va @ vo), float(vs @ vo))
        # Measured: paraphrases 0.57-0.76, unrelated pairs -0.03-0.18.
        assert close > 0.5 and far < 0.3 and close - far > 0.35, (a, close, far)


def test_vectors_are_unit_float32_rows_in_input_order(embedder) -> None:  # type: ignore[no-untyped-def]
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), 384) and vectors.dtype == np.float32
    assert embedder.dimensions == 384 and embedder.model_id == "all-minilm-l6-v2-int8"
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # Row i belongs to text i (the adapter sorts by length inside; it must sort back).
    for i, text in enumerate(SENTENCES):
        np.testing.assert_array_equal(vectors[i], embedder.embed([text])[0])


def _reference(texts: list[str], model_path: str, tokenizer_path: str) -> np.ndarray:
    """Mean pooling written out again, independently of the adapter: its own session (default
    options) and tokenizer, one text at a time, no padding, a plain mean over the tokens."""
    import onnxruntime
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(tokenizer_path)
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=256)
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    rows = []
    for text in texts:
        ids = tokenizer.encode(text).ids
        feed = {"input_ids": np.array([ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
                "token_type_ids": np.zeros((1, len(ids)), dtype=np.int64)}
        (hidden,) = session.run(None, feed)
        tokens = [list(map(float, t)) for t in hidden[0]]
        mean = [sum(column) / len(tokens) for column in zip(*tokens, strict=True)]
        norm = math.sqrt(sum(x * x for x in mean))
        rows.append([x / norm for x in mean])
    return np.array(rows)


def test_vectors_equal_an_independent_reference(embedder) -> None:  # type: ignore[no-untyped-def]
    texts = [*SENTENCES[:6], "", "Ünïcödé, punctuation!? and CAPITALS", "word " * 400]
    expected = _reference(texts, str(embedder.model_path), str(embedder.tokenizer_path))
    np.testing.assert_allclose(embedder.embed(texts), expected, atol=1e-5)


def test_a_batch_of_one_equals_a_batch_of_many(embedder) -> None:  # type: ignore[no-untyped-def]
    from desktop_agent.adapters.embed.embed_minilm import MiniLmEmbedder

    texts = [*SENTENCES, "a", "a much longer sentence than most of the others in this batch"]
    alone = np.stack([embedder.embed([t])[0] for t in texts])
    together = embedder.embed(texts)
    small_batches = MiniLmEmbedder(embedder.model_path, batch_size=3, threads=2).embed(texts)
    shuffled = list(reversed(texts))
    np.testing.assert_allclose(together, alone, atol=1e-6)
    np.testing.assert_allclose(small_batches, alone, atol=1e-6)
    np.testing.assert_allclose(embedder.embed(shuffled)[::-1], alone, atol=1e-6)


def test_empty_input_and_empty_text(embedder) -> None:  # type: ignore[no-untyped-def]
    assert embedder.embed([]).shape == (0, 384)
    blank = embedder.embed(["", "   ", "\n"])
    assert np.isfinite(blank).all()
    np.testing.assert_allclose(np.linalg.norm(blank, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(blank[1], blank[0], atol=1e-6)  # whitespace is no token


def test_a_long_text_is_cut_at_256_tokens(embedder) -> None:  # type: ignore[no-untyped-def]
    head = " ".join(["the meeting about the budget moved to thursday afternoon"] * 40)
    assert len(head.split()) > 300  # > 256 tokens
    one, two = embedder.embed([head + " and then pizza", head + " but nobody came"])
    np.testing.assert_array_equal(one, two)  # what follows the window is not heard
    short_one, short_two = embedder.embed(["the meeting moved and then pizza",
                                           "the meeting moved but nobody came"])
    assert float(short_one @ short_two) < 0.99  # while in a short text it counts


def test_non_strings_are_refused(embedder) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(TypeError, match="takes strings, got NoneType"):
        embedder.embed(["fine", None])


def test_nearest_examples_per_label_on_real_vectors(embedder) -> None:  # type: ignore[no-untyped-def]
    examples = {
        "timer": ["set a timer for five minutes", "start a countdown"],
        "weather": ["what's the weather like", "is it going to rain"],
        "volume": ["turn it up", "mute the sound"],
    }
    labels = [label for label, texts in examples.items() for _ in texts]
    index = ExampleIndex(labels, embedder.embed([t for texts in examples.values()
                                                 for t in texts]))
    for query, label in (("wake me in twenty minutes with a countdown", "timer"),
                         ("do I need an umbrella today", "weather"),
                         ("make it louder", "volume")):
        best = index.best_per_label(embedder.embed([query])[0])
        assert best[0].label == label, (query, best)
