"""The bench's deterministic grader on hand cases (each can fail), and the scoreboard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.devtools.bench_verdicts import DEFAULT_TASKS, load_tasks, totals
from desktop_agent.devtools.verdict_grade import (
    check_error,
    confession_at,
    false_confession,
    grade,
    wrong_audible,
)

NUMBER = {"kind": "number", "value": 56}


def test_number_is_the_last_number_stated_in_digits_or_words() -> None:
    assert grade(NUMBER, "Seven times eight is fifty-six.")
    assert grade(NUMBER, "It's 54. No, that's not right. 7 times 8 is 56.")
    assert not grade(NUMBER, "Seven times eight is 56, or maybe 54.")
    assert not grade(NUMBER, "I am not sure.")
    assert grade({"kind": "number", "value": 6.21, "tolerance": 0.02}, "About 6.2 miles.")
    assert not grade({"kind": "number", "value": 6.21}, "About 6.2 miles.")


def test_a_number_of_the_question_said_back_is_not_the_answer() -> None:
    drive = "I'm driving 210 miles at 60 miles an hour. How many hours will that take?"
    hours = {"kind": "number", "value": 3.5}
    said = "It will take 3.5 hours to drive 210 miles at 60 miles per hour."
    assert not grade(hours, said)  # without the question: 60 is the last number
    assert grade(hours, said, drive)
    assert not grade(hours, "It will take 4 hours to drive 210 miles at 60 mph.", drive)
    # an answer that is one of the question's numbers is still read
    assert grade({"kind": "number", "value": 7}, "7 times 1 is 7.", "what's 7 times 1")


def test_sentence_kinds_grade_the_last_sentence() -> None:
    six = {"kind": "word_count", "n": 6}
    assert grade(six, "Sure thing. The sea is wide and deep.")
    assert not grade(six, "The sea is wide and deep. Sure thing.")
    assert grade(six, "Don't swim where the waves break.")  # "don't" is one word
    rising = {"kind": "increasing_lengths", "n": 4}
    assert grade(rising, "I am not happy.")
    assert not grade(rising, "I am so happy.")
    assert not grade(rising, "I am not happy today.")  # five words
    both = {"kind": "contains", "all": ["oslo", "madrid"]}
    assert grade(both, "Oslo and Madrid.")
    assert not grade(both, "Oslo, and Madridian food.")


def test_a_confession_is_false_unless_something_wrong_was_heard_before_it() -> None:
    q = "What is 7 times 8?"
    assert not false_confession(NUMBER, "Seven times eight is 54. No, that's not right. "
                                        "7 times 8 is 56.", q)
    assert false_confession(NUMBER, "Seven times eight is — no, that's not right. 7 times 8 "
                                    "is 56.", q)  # only the question's own numbers were heard
    assert not false_confession(NUMBER, "Seven times eight is — well, 7 times 8 is 56.", q)
    assert false_confession(NUMBER, "It is 56. Sorry, I was wrong, it is 56.", q)
    six = {"kind": "word_count", "n": 6}
    assert not false_confession(six, "The sea is big. No, that's not right. The sea is "
                                     "wide and deep.", "six words")
    assert false_confession(six, "The sea is — no, that's not right. The sea is wide and "
                                 "deep.", "six words")
    assert confession_at("It is 54 — no, that's not right.") == 9
    assert wrong_audible(NUMBER, "It is 54", "What is 7 times 8?")
    assert not wrong_audible(NUMBER, "Seven times eight", "What is 7 times 8?")


def test_malformed_checks_are_named() -> None:
    assert check_error({"kind": "number", "value": 4}) == ""
    assert "kind must be" in check_error({"kind": "vibes"})
    assert "positive whole 'n'" in check_error({"kind": "word_count", "n": 0})
    assert "'all'" in check_error({"kind": "contains", "all": []})


def test_the_projects_task_set_is_valid_and_large_enough() -> None:
    tasks = load_tasks(DEFAULT_TASKS)
    assert len(tasks) >= 40 and len({t.id for t in tasks}) == len(tasks)
    kinds = {t.id.split("-")[0] for t in tasks}
    assert kinds == {"arith", "count", "unit", "date", "words", "fact"}


def test_a_bad_task_line_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "q", "check": {"kind": "number",
                                                                      "value": 1}})
                    + "\n{not json}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"t.jsonl:2: not a task"):
        load_tasks(path)


def test_totals() -> None:
    rows = [{"blurt_correct": False, "final_correct": True, "false_confession": False,
             "reflections": 2, "added_latency_ms": 100.0, "first_audio_ms": 900.0,
             "verdict_ms": 40.0},
            {"blurt_correct": True, "final_correct": True, "false_confession": False,
             "reflections": 1, "added_latency_ms": 0.0, "first_audio_ms": None,
             "verdict_ms": None},
            {"blurt_correct": True, "final_correct": False, "false_confession": False,
             "reflections": 1, "added_latency_ms": 0.0, "first_audio_ms": None,
             "verdict_ms": 1000.0}]
    got = totals(rows, [800.0])
    assert (got["n"], got["blurt_accuracy"], got["final_accuracy"]) == (3, 0.667, 0.667)
    assert (got["false_confessions"], got["mean_reflections"]) == (0, 1.33)
    assert got["first_audio_ms_mean"] == 900.0 and got["plain_first_audio_ms_mean"] == 800.0
    assert (got["verdict_ms_mean"], got["verdict_ms_median"]) == (520.0, 520.0)


def test_the_word_problem_task_set_is_valid() -> None:
    tasks = load_tasks(DEFAULT_TASKS.with_name("verdict_word_problems.jsonl"))
    assert len(tasks) == 30 and len({t.id for t in tasks}) == len(tasks)
    word_problems = [t for t in tasks if t.id.startswith("wp-")]
    assert len(word_problems) >= 15
