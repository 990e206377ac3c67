"""Numbers stated in text, digits or words, and sentences and words of an utterance."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Final

from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words

_DIGITS: Final = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS: Final = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])[\"')\]]*\s+")
_PRONOUN_ONE: Final = re.compile(r"\b(that|this|the|which|each|any|every|no|some|another|"
                                 r"last|first|next|right|wrong|other|a)\s+one\b")
_ONE_OF: Final = re.compile(r"\bone\s+of\b")
_WORD: Final = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)*")
_FIRST_ITEM: Final = re.compile(r"(?:^|(?<=[:\n]))\s*1[.)]\s*$")


def without_first_item(text: str) -> str:
    """``text`` less the number of a list's first item it ends with ("these steps: 1.").

    That "1." is neither an answer nor a sentence's end. Only 1, the first item: "The total
    is: 56." ends a sentence, and 56 is its answer.
    """
    return _FIRST_ITEM.sub("", text)


def numbers_in(text: str) -> list[Fraction]:
    """Every number stated in ``text`` in order: '1,081', 'one thousand and eighty-one', '2.5'.

    Spoken quantities count: 'three and a half', 'a dozen', 'half an hour' (0.5). 'one' as
    a pronoun ('that one', 'one of them', 'no one') is not a number.
    """
    cleaned = _PRONOUN_ONE.sub(r"\1 ~", _THOUSANDS.sub("", clean_spoken(text)))
    cleaned = _ONE_OF.sub("~ of", cleaned)
    return [Fraction(m.group()) for m in _DIGITS.finditer(replace_quantity_words(cleaned))]


def last_number(text: str) -> Fraction | None:
    """The last number stated in ``text`` (None when it states none)."""
    found = numbers_in(text)
    return found[-1] if found else None


def last_number_word(text: str) -> int | None:
    """Index of the first whitespace-separated word of the last number in ``text``."""
    return number_word(text, len(numbers_in(text)) - 1)


def number_word(text: str, index: int) -> int | None:
    """Index of the first whitespace-separated word of number ``index`` (0: the first).

    The smallest prefix of words that states ``index + 1`` numbers ends on the first word
    of that number ("is twenty three" -> the index of "twenty"). None: no such number.
    """
    if index < 0:
        return None
    words = text.split()
    for i in range(len(words)):
        if len(numbers_in(" ".join(words[: i + 1]))) > index:
            return i
    return None


def sentences(text: str) -> list[str]:
    """``text`` split after sentence-ending punctuation followed by a space."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


def last_sentence(text: str) -> str:
    """The last sentence of ``text`` ('' for empty text)."""
    found = sentences(text)
    return found[-1] if found else ""


def words_of(sentence: str) -> list[str]:
    """The words of ``sentence`` without punctuation ("don't" is one word)."""
    return _WORD.findall(sentence)


def word_index_of_last_sentence(text: str) -> int:
    """Index of the first whitespace-separated word of the last sentence of ``text``."""
    last = last_sentence(text)
    return max(0, len(text.split()) - len(last.split()))
