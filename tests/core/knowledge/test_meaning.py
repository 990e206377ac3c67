"""Meaning: cosines from an Embedder, a cache, and no opinion (never an error) without one."""

from __future__ import annotations

import logging

import pytest

from desktop_agent.core.knowledge.meaning import Meaning
from tests.fakes.embed import FakeEmbedder


def test_similarities_are_cosines_and_each_text_is_embedded_once() -> None:
    fake = FakeEmbedder(synonyms=[{"fix", "repair"}])
    meaning = Meaning(fake)
    assert meaning.available and meaning.model_id == "fake-embed"
    sims = meaning.similarities("fix", ["repair", "bike", "fix"])
    assert sims == pytest.approx([1.0, 0.0, 1.0])
    meaning.similarities("fix", ["repair"])
    assert fake.embedded.count("fix") == 1 and fake.embedded.count("repair") == 1
    assert meaning.closest("fix", ["wheel", "repair"]) == pytest.approx(1.0)
    assert meaning.closest("fix", []) == 0.0


def test_the_cache_is_bounded() -> None:
    fake = FakeEmbedder()
    meaning = Meaning(fake, cache_size=2)
    meaning.vectors(["a1", "b1", "c1"])
    meaning.vectors(["a1"])  # evicted: embedded again
    assert fake.embedded.count("a1") == 2


def test_a_failing_engine_turns_meaning_off_once_without_raising(
        caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeEmbedder(fail=True)
    meaning = Meaning(fake)
    with caplog.at_level(logging.WARNING):
        assert meaning.similarities("a", ["b"]) is None
        assert meaning.vectors(["c"]) is None
        assert meaning.closest("a", ["b"]) == 0.0
    assert not meaning.available and "embed_model_corrupt" in meaning.problem
    warnings = [r for r in caplog.records if "words only" in r.getMessage()]
    assert len(warnings) == 1  # said once


def test_no_engine_means_no_opinion() -> None:
    meaning = Meaning(None)
    assert not meaning.available and meaning.model_id == ""
    assert meaning.vectors(["a"]) is None and meaning.similarities("a", ["b"]) is None
