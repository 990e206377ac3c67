"""Reciprocal rank fusion, and when word search counts as weak."""

from __future__ import annotations

import pytest

from desktop_agent.core.knowledge.fusion import (
    MIN_SEMANTIC_SCORE,
    RRF_K,
    fuse_passages,
    lexically_weak,
    reciprocal_rank_fusion,
)
from desktop_agent.core.knowledge.index import Passage


def _p(pid: str, text: str, score: float = 0.0, title: str = "notes.txt") -> Passage:
    return Passage(pid, f"/d/{title}", title, text, 0, len(text), score)


def test_fusion_adds_one_over_k_plus_rank_per_ranking() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["c", "d"]])
    # c: 1/(60+3) + 1/(60+1) beats a: 1/61 alone; b (1/62) beats d (1/62)? a tie: first seen.
    assert fused == ["c", "a", "b", "d"]
    assert 1 / (RRF_K + 3) + 1 / (RRF_K + 1) > 1 / (RRF_K + 1)


def test_an_item_twice_in_one_ranking_counts_once_and_k_must_not_be_negative() -> None:
    assert reciprocal_rank_fusion([["a", "a", "b"], ["b"]]) == ["b", "a"]
    assert reciprocal_rank_fusion([]) == []
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], k=-1)


def test_word_search_is_weak_when_no_single_passage_has_every_topic_word() -> None:
    club = _p("1", "The chess club meets on Thursdays.")
    pool = _p("2", "The pool is open from 7 am.")
    assert lexically_weak("When is the chess club open?", [club, pool])  # each lacks one
    assert not lexically_weak("When does the chess club meet?", [club, pool])
    assert lexically_weak("When is the chess club open?", [])
    assert not lexically_weak("what is it", [])  # no topic word: nothing to help
    # The title counts, as in the gate: "boiler" of boiler_manual.pdf.
    assert not lexically_weak("boiler pressure", [_p("3", "Pressure: 1.5 bar.",
                                                     title="boiler_manual.pdf")])


def test_fused_passages_keep_their_own_scores_and_drop_weak_meaning_only_hits() -> None:
    lexical = [_p("a", "x", 7.0), _p("b", "y", 3.0)]
    semantic = [_p("c", "z", 0.62), _p("b", "y", 0.55), _p("d", "w", MIN_SEMANTIC_SCORE - 0.01)]
    fused = fuse_passages(lexical, semantic, limit=5)
    assert [p.passage_id for p in fused] == ["b", "a", "c"]  # b in both; d too far in meaning
    assert [p.score for p in fused] == [3.0, 7.0, 0.62]  # BM25 where word search found it
    assert fuse_passages(lexical, semantic, limit=1) == [lexical[1]]
    assert fuse_passages([], [], limit=3) == []
