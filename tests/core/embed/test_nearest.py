"""Nearest labelled examples by cosine: small hand-made vectors whose answers are known."""

from __future__ import annotations

import math

import pytest

from desktop_agent.core.embed import ExampleIndex, Neighbour, cosine, rank

# Three "tools", two examples each, in 3 dimensions; directions chosen so the angles are known.
LABELS = ("timer", "timer", "weather", "weather", "volume", "volume")
VECTORS = (
    (1.0, 0.0, 0.0),
    (2.0, 0.2, 0.0),   # not unit length: the index normalises it
    (0.0, 1.0, 0.0),
    (0.1, 1.0, 0.1),
    (0.0, 0.0, 1.0),
    (0.0, 0.3, 3.0),
)


@pytest.fixture()
def index() -> ExampleIndex:
    return ExampleIndex(LABELS, VECTORS)


def test_cosine_of_known_angles() -> None:
    assert cosine((1, 0), (0, 1)) == pytest.approx(0.0)
    assert cosine((1, 0), (3, 0)) == pytest.approx(1.0)
    assert cosine((1, 0), (-2, 0)) == pytest.approx(-1.0)
    assert cosine((1, 1), (1, 0)) == pytest.approx(1 / math.sqrt(2))
    assert cosine((0, 0), (1, 0)) == 0.0  # a zero vector has no direction
    with pytest.raises(ValueError, match="length 2 and 3"):
        cosine((1, 0), (1, 0, 0))


def test_scores_are_cosines_in_example_order(index: ExampleIndex) -> None:
    scores = index.scores((1.0, 0.0, 0.0))
    expected = [cosine((1, 0, 0), v) for v in VECTORS]
    assert scores == pytest.approx(expected)
    assert scores[0] == pytest.approx(1.0) and scores[2] == pytest.approx(0.0)
    assert len(index) == 6 and index.dimensions == 3


def test_nearest_is_best_first_with_labels_and_rows(index: ExampleIndex) -> None:
    near = index.nearest((0.9, 0.1, 0.0), k=3)
    assert [(n.label, n.index) for n in near] == [("timer", 1), ("timer", 0), ("weather", 3)]
    assert near[0].score > near[1].score > near[2].score
    assert near[0].score == pytest.approx(cosine((0.9, 0.1, 0.0), VECTORS[1]))


def test_per_label_limits_each_label(index: ExampleIndex) -> None:
    near = index.nearest((0.9, 0.1, 0.0), k=3, per_label=1)
    assert [n.label for n in near] == ["timer", "weather", "volume"]
    assert [n.index for n in near] == [1, 3, 5]  # each label's own nearest example


def test_best_per_label_ranks_every_label_once(index: ExampleIndex) -> None:
    best = index.best_per_label((0.0, 0.2, 1.0))
    assert [n.label for n in best] == ["volume", "weather", "timer"]
    assert best[0].index == 5 and best[0].score == pytest.approx(
        cosine((0.0, 0.2, 1.0), VECTORS[5]))


def test_k_larger_than_the_index_and_k_zero(index: ExampleIndex) -> None:
    assert len(index.nearest((1, 0, 0), k=100)) == 6
    assert index.nearest((1, 0, 0), k=0) == []


def test_ties_go_to_the_earlier_example() -> None:
    twins = ExampleIndex(("b", "a", "c"), [(1, 0), (1, 0), (0, 1)])
    assert [n.index for n in twins.nearest((1, 0), k=2)] == [0, 1]
    assert rank([0.5, 0.5, 0.5], ["x", "y", "z"], k=2) == [
        Neighbour("x", 0, 0.5), Neighbour("y", 1, 0.5)]


def test_rank_works_on_scores_computed_elsewhere() -> None:
    scores = [0.1, 0.9, 0.8, 0.95, -0.2]
    labels = ["a", "b", "b", "c", "a"]
    assert [(n.label, n.index) for n in rank(scores, labels, k=4)] == [
        ("c", 3), ("b", 1), ("b", 2), ("a", 0)]
    assert [(n.label, n.index) for n in rank(scores, labels, k=4, per_label=1)] == [
        ("c", 3), ("b", 1), ("a", 0)]


def test_a_zero_query_scores_zero_everywhere(index: ExampleIndex) -> None:
    assert index.scores((0.0, 0.0, 0.0)) == [0.0] * 6


def test_an_empty_index_answers_nothing() -> None:
    empty = ExampleIndex((), ())
    assert len(empty) == 0 and empty.nearest((1.0, 2.0), k=3) == []
    assert empty.best_per_label((1.0,)) == []


def test_mismatches_are_refused() -> None:
    with pytest.raises(ValueError, match="2 labels but 1 vectors"):
        ExampleIndex(("a", "b"), [(1, 0)])
    with pytest.raises(ValueError, match="differ in length"):
        ExampleIndex(("a", "b"), [(1, 0), (1, 0, 0)])
    with pytest.raises(ValueError, match="a query of length 2"):
        ExampleIndex(("a",), [(1, 0, 0)]).scores((1, 0))
    with pytest.raises(ValueError, match="3 scores but 2 labels"):
        rank([1, 2, 3], ["a", "b"], k=1)
    with pytest.raises(ValueError, match="must not be negative"):
        rank([1.0], ["a"], k=-1)


def test_rows_of_any_float_iterable_are_read_once() -> None:
    # An Embedder hands numpy rows; core reads any iterable of numbers (here generators).
    index = ExampleIndex(["g"], (iter((3.0, 4.0)) for _ in range(1)))
    assert index.scores(iter((4.0, 3.0))) == pytest.approx([24 / 25])
