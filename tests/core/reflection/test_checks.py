"""The reflector's literal checks and the confession gate (pure, microseconds)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.reflection.checks import NumberCheck, SentenceCheck, find_check
from desktop_agent.core.reflection.gate import (
    confess,
    has_confession,
    join_heard,
    refine_text,
    repair_text,
)
from desktop_agent.core.reflection.reflector import applies, reflect
from desktop_agent.core.reflection.stated_numbers import last_number, last_number_word, numbers_in
from desktop_agent.core.reflection.verdict import Verdict


@pytest.mark.parametrize(("question", "checker", "expected"), [
    ("What is 23 times 47?", "arithmetic", 1081),
    ("So what's seventeen plus 25 times 2?", "arithmetic", 67),
    ("What is 15 percent of 80?", "arithmetic", 12),
    ("What is 13 squared?", "arithmetic", 169),
    ("How many r's are in strawberry?", "letters", 3),
    ("How many letters r are in the word strawberry?", "letters", 3),
    ("How many times does the letter o appear in chocolate?", "letters", 2),
    ("How many letters are in the word rhythm?", "letters", 6),
    ("How many vowels are in the word education?", "letters", 5),
    ("How many feet are in a mile?", "units", 5280),
    ("How many ounces are in 3 pounds?", "units", 48),
    ("How many days are in March, April and May together?", "dates", 92),
    ("How many days are there from January 10 to February 5?", "dates", 26),
    ("How many hours are in 3 days?", "dates", 72),
    ("How many minutes are in three and a half hours?", "units", 210),
    ("How many minutes in half an hour?", "units", 30),
    ("How many days are in three fortnights?", "units", 42),
    ("Half an hour is how many seconds?", "units", 1800),
    ("A mile is how many feet?", "units", 5280),
    ("What is a quarter of 120?", "arithmetic", 30),
    ("What is one and a quarter plus two and a half?", "arithmetic", Fraction(15, 4)),
    ("How many days are in a couple of weeks?", "dates", 14),
])
def test_a_number_check_reads_the_literal_question(question: str, checker: str,
                                                    expected: int | Fraction) -> None:
    check = find_check(question)
    assert isinstance(check, NumberCheck)
    assert (check.checker, check.expected) == (checker, Fraction(expected))


def test_questions_of_fact_have_no_check() -> None:
    for question in ("What is the capital of Norway?", "Who wrote Hamlet?", "Tell me a joke.",
                     "What time is it?"):
        assert find_check(question) is None
    assert applies("on", "Who wrote Hamlet?") and not applies("checkable", "Who wrote Hamlet?")
    assert applies("checkable", "What is 2 plus 2?") and not applies("off", "What is 2 plus 2?")


def test_a_part_of_a_word_problem_is_not_its_arithmetic() -> None:
    # "25 percent" evaluates, but the question has another number: not a calculation.
    assert find_check("A shirt costs 40 dollars and is on sale for twenty-five percent off. "
                      "What is the sale price?") is None
    assert find_check("Tom has half of 10 apples and buys 3 more. How many has he?") is None


def test_word_constraints_are_read_from_the_question() -> None:
    assert find_check("Write one sentence of exactly six words about the sea.") == \
        SentenceCheck("words", n=6)
    assert find_check("Write a sentence of five words where each word is longer than the one "
                      "before.") == SentenceCheck("words", n=5, increasing=True)
    assert find_check('Write one sentence that uses the words "river" and "moon".') == \
        SentenceCheck("words", contains=("river", "moon"))
    assert find_check("In exactly six words, describe the moon.") == SentenceCheck("words", 6)
    assert find_check("Describe a forest in nine words.") == SentenceCheck("words", 9)
    assert find_check("Describe a forest in ten words or fewer.") is None  # not exact
    assert find_check("Give me a five-word sentence about coffee.") == SentenceCheck("words", 5)
    assert find_check("Suggest a title for a mystery novel, exactly three words.") == \
        SentenceCheck("words", 3)
    assert find_check("A motivational line that's exactly seven words long.") == \
        SentenceCheck("words", 7)
    assert find_check("Give me a four-word motto for a running club.") == \
        SentenceCheck("words", 4)
    assert find_check("Tell me about the ocean using exactly six words.") == \
        SentenceCheck("words", 6)
    assert find_check("Tell me about the ocean using six words at most.") is None
    assert find_check("Give me a five-word sentence in which every word has more letters than "
                      "the previous word.") == SentenceCheck("words", 5, increasing=True)
    assert find_check("Write a four-word sentence where each word is longer than the last.") \
        == SentenceCheck("words", 4, increasing=True)
    assert find_check("What is a four-word phrase?") == SentenceCheck("words", 4)
    assert find_check("Name a word with four letters.") is None
    assert find_check('Write a sentence that starts with the word "Yesterday".') == \
        SentenceCheck("words", starts="yesterday")
    assert find_check("Write a sentence that starts with the letter b.") is None
    starts = SentenceCheck("words", starts="yesterday")
    assert starts.judge("Yesterday it rained.").verdict is Verdict.GOOD
    assert starts.judge("It rained yesterday.").guidance == \
        "The sentence must start with 'yesterday'."


def test_numbers_are_read_in_digits_and_words_but_not_pronouns() -> None:
    assert numbers_in("Twenty-three times forty-seven is one thousand eighty-one.") == [
        23, 47, 1081]
    assert last_number("It is 1,081 exactly.") == 1081
    assert numbers_in("Let me work that one out; one of them is 5.") == [5]
    assert numbers_in("That's three and a half hours, or half an hour more than 3.") == [
        Fraction(7, 2), Fraction(1, 2), 3]
    assert numbers_in("A dozen eggs and a couple of spoons.") == [12, 2]
    assert last_number_word("so 23 times 47 is one thousand eighty-one") == 5


def test_the_number_check_judges_the_last_number_said() -> None:
    check = find_check("What is 7 times 8?")
    assert check is not None
    good = check.judge("Seven times eight is fifty-six.")
    assert good.verdict is Verdict.GOOD and good.guidance == ""
    wrong = check.judge("Seven times eight is 54.")
    assert wrong.verdict is Verdict.REPAIR
    assert wrong.flagged_word == 4 and wrong.correction == "7 times 8 is 56"
    assert "54 is wrong" in wrong.guidance
    # A restated operand is no answer yet: refine, nothing flagged.
    unfinished = check.judge("Seven times eight.")
    assert unfinished.verdict is Verdict.REFINE and unfinished.flagged_word is None
    assert check.judge("Hmm, let me see.").verdict is Verdict.REFINE


def test_conversions_allow_rounding() -> None:
    check = find_check("Convert 10 kilometers to miles.")
    assert check is not None
    assert check.judge("That's about 6.21 miles.").verdict is Verdict.GOOD
    assert check.judge("That's about 6.2 miles.").verdict is Verdict.GOOD
    assert check.judge("That's about 16 miles.").verdict is Verdict.REPAIR


def test_the_sentence_check_says_exactly_which_constraint_fails() -> None:
    six = SentenceCheck("words", n=6)
    assert six.judge("Sure. The sea is wide and deep.").verdict is Verdict.GOOD
    bad = six.judge("Sure. The sea is vast and blue and deep.")
    assert bad.verdict is Verdict.REPAIR and bad.flagged_word == 1
    assert bad.guidance == "The sentence has 8 words; it needs exactly 6."
    rising = SentenceCheck("words", n=4, increasing=True)
    assert rising.judge("I am not happy.").verdict is Verdict.GOOD
    why = rising.judge("I am so happy.").guidance
    assert why == "Word 3 'so' (2 letters) is not longer than word 2 'am' (2 letters)."
    both = SentenceCheck("words", contains=("river", "moon"))
    assert both.judge("The moon lit the river.").verdict is Verdict.GOOD
    assert "'river'" in both.judge("The moon rose.").guidance


def test_reflect_uses_a_check_first_and_the_model_only_for_facts() -> None:
    class Judge:
        calls = 0

        def judge(self, question: str, utterance: str, cancel: object) -> object:
            Judge.calls += 1
            from desktop_agent.core.reflection.verdict import Judgement

            return Judgement(Verdict.REPAIR, "Oslo.")

    judge = Judge()
    assert reflect("What is 2 plus 2?", "Four.", judge).checker == "arithmetic"
    assert Judge.calls == 0
    assert reflect("Capital of Norway?", "Bergen.", judge).guidance == "Oslo."
    assert Judge.calls == 1
    assert reflect("Capital of Norway?", "Bergen.", None).verdict is Verdict.GOOD


def test_the_gate_confesses_only_what_was_heard() -> None:
    # "Seven times eight is 54." : the flagged word is word 4.
    assert confess(4, heard_words=5, said_words=5)
    assert not confess(4, heard_words=4, said_words=5)  # cut before "54"
    assert not confess(4, heard_words=0, said_words=5)
    # Unlocated claims: only when every word was heard.
    assert confess(None, heard_words=5, said_words=5)
    assert not confess(None, heard_words=4, said_words=5)
    assert not confess(None, heard_words=0, said_words=0)


def test_repair_and_refine_words() -> None:
    assert repair_text("7 times 8 is 56", "Seven times eight is 54.", confessing=True) == \
        "No, that's not right. 7 times 8 is 56."
    assert repair_text("7 times 8 is 56", "Seven times eight is", confessing=True) == \
        "— no, that's not right. 7 times 8 is 56."
    clean = repair_text("7 times 8 is 56", "Seven times eight is", confessing=False)
    assert clean == "— well, 7 times 8 is 56." and not has_confession(clean)
    assert repair_text("7 times 8 is 56", "", confessing=False) == "7 times 8 is 56."
    assert refine_text("7 times 8 is 56") == "So, 7 times 8 is 56."
    # A sentence task's new attempt after an unfinished one: a sentence of its own.
    again = repair_text("The forest is deep and green.", "A dense forest", confessing=False)
    assert again == "— let me start again. The forest is deep and green."
    assert not has_confession(again)
    assert has_confession("No, that’s not right.") and not has_confession("That is right.")


def test_join_heard_keeps_the_cut_stream_and_the_repair() -> None:
    before = HeardReport(TurnId(1), "Seven times eight is 54.", "Seven times eight is",
                         "54.", 1.0, True, "Seven times eight is")
    after = HeardReport(TurnId(1), "— well, 7 times 8 is 56.", "— well, 7 times 8 is 56.",
                        "", 2.0, False, "— well, 7 times 8 is 56.")
    both = join_heard(before, after)
    assert both.heard_text == "Seven times eight is — well, 7 times 8 is 56."
    assert both.heard_written == both.heard_text and both.cut_at_s == 3.0
    assert not both.interrupted
