"""Word error rate and entity error rate, after one documented normalisation.

Both sides (the reference and the recogniser's text) go through :func:`normalize_words`,
so a difference in how a number or a title is *written* is never counted as an error:

1. Unicode NFKC, curly quotes made straight, lower case; a note in square brackets
   ("plus [+]") is dropped.
2. Titles and abbreviations spelled out: "Mr." -> "mister", "Mrs." -> "missus",
   "Dr." -> "doctor", "vs." -> "versus", "etc." -> "et cetera", "e.g." -> "for example",
   "i.e." -> "that is"; "a.m."/"p.m." -> "am"/"pm"; "ok" -> "okay".
3. Symbols said as words: "&" -> "and", "%" -> "percent", "+" -> "plus", "@" -> "at",
   "$5" -> "5 dollars", "*" -> "star", "#" -> "pound".
4. Times: "10:30" -> "10 30", "10:00" -> "10"; "o'clock" is dropped (so "ten o'clock"
   and "10:00" agree).
5. Contractions are spelled out: "you're" -> "you are", "I'm" -> "i am", "we'll" ->
   "we will", "they've" -> "they have", "isn't" -> "is not", "won't" -> "will not",
   "can't" -> "can not", "cannot" -> "can not" ("'s" and "'d" stay: is/has, had/would).
6. Hyphens, slashes and dashes split words ("call-forward" -> "call forward",
   "twenty-eight" -> "twenty eight"), except after a short prefix, where they join
   ("re-record" -> "rerecord", "un-delete" -> "undelete").
7. Numbers become digits, and every digit is its own word: "1,234", "one thousand two
   hundred thirty four" and "one two three four" all become "1 2 3 4"; "28.8" and
   "twenty eight point eight" become "2 8 point 8". Ordinals keep a "th" word after the
   digits: "1st", "first" -> "1 th"; "twenty-first", "21st" -> "2 1 th". (One digit per
   word makes the written and spoken forms agree whatever grouping the speaker or the
   recogniser chose; a wrong digit costs one word, not the whole number.)
8. Hesitations ("uh", "um", "er", "ah", "hmm", "mm") are dropped; every other
   punctuation mark is removed (an apostrophe inside a word stays: "don't", "waldo's").

Entities (:func:`reference_entities`) are taken from the *written* reference, before
normalisation: every number (digit runs, and runs of number words), every clock time
("3:30", "10 a.m.", "ten o'clock"), and every capitalised name (a capitalised word that
does not start a sentence, is not "I", and runs of them: "Super Awesome Company"). Each is
normalised as above; it counts as found when its words appear, in order and together, in
the normalised hypothesis (each occurrence in the hypothesis finds one occurrence in the
reference).

Pure: stdlib only.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

__all__ = [
    "ErrorCounts",
    "align_counts",
    "entity_errors",
    "normalize_words",
    "pooled",
    "reference_entities",
    "word_errors",
]

_UNITS: Final = {
    "zero": 0, "oh": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9,
}  # fmt: skip
_TEENS: Final = {
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS: Final = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip
_SCALES: Final = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_ORDINALS: Final = {
    "first": "one", "second": "two", "third": "three", "fourth": "four", "fifth": "five",
    "sixth": "six", "seventh": "seven", "eighth": "eight", "ninth": "nine", "tenth": "ten",
    "eleventh": "eleven", "twelfth": "twelve", "thirteenth": "thirteen",
    "fourteenth": "fourteen", "fifteenth": "fifteen", "sixteenth": "sixteen",
    "seventeenth": "seventeen", "eighteenth": "eighteen", "nineteenth": "nineteen",
    "twentieth": "twenty", "thirtieth": "thirty", "fortieth": "forty", "fiftieth": "fifty",
    "sixtieth": "sixty", "seventieth": "seventy", "eightieth": "eighty",
    "ninetieth": "ninety", "hundredth": "hundred", "thousandth": "thousand",
}  # fmt: skip
_HESITATIONS: Final = frozenset({"uh", "um", "umm", "er", "erm", "ah", "hmm", "mm", "mhm"})
_ABBREVIATIONS: Final = (
    (re.compile(r"\bmr\.?(?=\s|$)"), "mister"),
    (re.compile(r"\bmrs\.?(?=\s|$)"), "missus"),
    (re.compile(r"\bdr\.(?=\s|$)"), "doctor"),
    (re.compile(r"\bvs\.?(?=\s|$)"), "versus"),
    (re.compile(r"\betc\.?(?=\W|$)"), "et cetera"),
    (re.compile(r"\be\.g\.?(?=\W|$)"), "for example"),
    (re.compile(r"\bi\.e\.?(?=\W|$)"), "that is"),
    (re.compile(r"\b([ap])\.\s?m\b\.?"), r"\1m"),
    (re.compile(r"\b([ap]) m\b"), r"\1m"),
    (re.compile(r"\bok\b"), "okay"),
    (re.compile(r"\bo'clock\b"), " "),
)
_SYMBOLS: Final = (
    (re.compile(r"\$\s?([0-9][0-9,]*(?:\.[0-9]+)?)"), r"\1 dollars"),
    (re.compile(r"&"), " and "),
    (re.compile(r"%"), " percent "),
    (re.compile(r"\+"), " plus "),
    (re.compile(r"@"), " at "),
    (re.compile(r"\*"), " star "),
    (re.compile(r"#"), " pound "),
)
_TIME: Final = re.compile(r"\b([0-9]{1,2}):([0-9]{2})\b")
_THOUSANDS: Final = re.compile(r"\b([0-9]{1,3}(?:,[0-9]{3})+)\b")
_DIGIT_ORDINAL: Final = re.compile(r"\b([0-9]+)(?:st|nd|rd|th)\b")
_DECIMAL: Final = re.compile(r"\b([0-9]+)\.([0-9]+)\b")
_SPLIT: Final = re.compile(r"[-\u2010-\u2015/\\]")
_PREFIX: Final = re.compile(r"\b(re|un|pre|co|non|de|sub|mis)-(?=[a-z])")
_BRACKETED: Final = re.compile(r"\[[^\]]*\]")
_CONTRACTIONS: Final = (
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b"), "can not"),
    (re.compile(r"\bcannot\b"), "can not"),
    (re.compile(r"\bain't\b"), "is not"),
    (re.compile(r"\b(\w+)n't\b"), r"\1 not"),
    (re.compile(r"\b(\w+)'re\b"), r"\1 are"),
    (re.compile(r"\bi'm\b"), "i am"),
    (re.compile(r"\b(\w+)'ll\b"), r"\1 will"),
    (re.compile(r"\b(\w+)'ve\b"), r"\1 have"),
)
_NOT_WORD: Final = re.compile(r"[^\w' ]+")


def _prepare(text: str) -> str:
    """Steps 1-5 and the symbol rules: text with numbers still as written or spoken."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    text = _BRACKETED.sub(" ", text.lower())
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    for pattern, replacement in _SYMBOLS:
        text = pattern.sub(replacement, text)
    for pattern, replacement in _ABBREVIATIONS:
        text = pattern.sub(replacement, text)
    text = _TIME.sub(lambda m: m.group(1) if m.group(2) == "00" else f"{m.group(1)} "
                     f"{m.group(2)}", text)
    text = _THOUSANDS.sub(lambda m: m.group(1).replace(",", ""), text)
    text = _DECIMAL.sub(r"\1 point \2", text)
    text = _DIGIT_ORDINAL.sub(r"\1 th", text)
    text = _SPLIT.sub(" ", _PREFIX.sub(r"\1", text))
    return text


def _tokens(text: str) -> list[str]:
    """Words of prepared text: punctuation gone, apostrophes kept only inside words."""
    words = []
    for raw in _NOT_WORD.sub(" ", text).split():
        word = raw.strip("'")
        if word and word not in _HESITATIONS:
            words.append(word)
    return words


class _NumberReader:
    """Reads runs of number words ("two thousand and seven") into one digit per word.

    A number ends where its words can no longer join: "twenty five" is 25, "two five" is
    2 then 5, "twenty twenty six" is 20 then 26 (written "2 0 2 6", as "2026" is).
    """

    def __init__(self) -> None:
        self.out: list[str] = []
        self._total = 0
        self._section: int | None = None
        self._last = ""
        """Kind of the previous number word: unit, teen, tens, hundred, scale, digits."""
        self._and = False  # a British "and" after "hundred"/"thousand", not yet placed

    def _flush(self) -> None:
        if self._last:
            self.out.extend(str(self._total + (self._section or 0)))
        self._total, self._section, self._last = 0, None, ""
        if self._and:
            self.out.append("and")
            self._and = False

    def _value(self, value: int, kind: str, joins: tuple[str, ...]) -> None:
        if self._last in joins:
            self._section = (self._section or 0) + value
        else:
            self._flush()
            self._section = value
        self._and = False
        self._last = kind

    def word(self, word: str) -> None:
        """Take one word (a number word, digits, or anything else)."""
        if word.isascii() and word.isdigit():
            if len(word) <= 3 and (word == "0" or not word.startswith("0")):
                self._value(int(word), "digits", ("hundred", "scale") if len(word) <= 2
                            else ("scale",))
            else:
                self._flush()
                self.out.extend(word)
        elif word in _UNITS and (word != "oh" or self._last):
            self._value(_UNITS[word], "unit", ("tens", "hundred", "scale"))
        elif word in _TEENS:
            self._value(_TEENS[word], "teen", ("hundred", "scale"))
        elif word in _TENS:
            self._value(_TENS[word], "tens", ("hundred", "scale"))
        elif word == "hundred" and self._last in ("unit", "teen", "tens", "digits"):
            self._section = (self._section or 1) * 100
            self._last = "hundred"
        elif word in _SCALES and self._last in ("unit", "teen", "tens", "digits", "hundred"):
            self._total += (self._section or 1) * _SCALES[word]
            self._section, self._last = None, "scale"
        elif word == "and" and self._last in ("hundred", "scale") and not self._and:
            self._and = True
        else:
            self._flush()
            self.out.append(word)

    def close(self) -> list[str]:
        """The words read, with any number still open written out."""
        self._flush()
        return self.out


def _numbers_to_digits(words: Sequence[str]) -> list[str]:
    reader = _NumberReader()
    for word in words:
        if word in _ORDINALS:
            reader.word(_ORDINALS[word])
            reader.word("th")
        else:
            reader.word(word)
    return reader.close()


def normalize_words(text: str) -> list[str]:
    """The words of ``text`` after the normalisation in the module docstring."""
    return _numbers_to_digits(_tokens(_prepare(text)))


@dataclass(frozen=True, slots=True)
class ErrorCounts:
    """An alignment's edit counts; ``wer`` is (S + D + I) / N."""

    substitutions: int
    deletions: int
    insertions: int
    ref_words: int
    """N: words in the normalised reference."""

    @property
    def errors(self) -> int:
        """S + D + I."""
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float | None:
        """Word error rate; None when the reference has no words."""
        return self.errors / self.ref_words if self.ref_words else None

    def __add__(self, other: ErrorCounts) -> ErrorCounts:
        """Counts of two alignments together (pooling)."""
        return ErrorCounts(self.substitutions + other.substitutions,
                           self.deletions + other.deletions,
                           self.insertions + other.insertions,
                           self.ref_words + other.ref_words)


def align_counts(ref: Sequence[str], hyp: Sequence[str]) -> ErrorCounts:
    """Minimum-edit alignment of two word lists (Levenshtein), with S, D and I counted.

    Among alignments with the fewest edits, the one with the most substitutions is taken
    (a wrong word is one error, not a deletion plus an insertion, which cost the same).
    """
    # Each cell: (edits, substitutions, deletions, insertions); ties -> more substitutions.
    prev = [(j, 0, 0, j) for j in range(len(hyp) + 1)]
    for i in range(1, len(ref) + 1):
        row = [(i, 0, i, 0)]
        for j in range(1, len(hyp) + 1):
            e, s, d, n = prev[j - 1]
            same = ref[i - 1] == hyp[j - 1]
            diagonal = (e, s, d, n) if same else (e + 1, s + 1, d, n)
            e, s, d, n = prev[j]
            up = (e + 1, s, d + 1, n)
            e, s, d, n = row[j - 1]
            left = (e + 1, s, d, n + 1)
            row.append(min(diagonal, up, left, key=lambda c: (c[0], -c[1])))
        prev = row
    _, s, d, n = prev[-1]
    return ErrorCounts(s, d, n, len(ref))


def word_errors(reference: str, hypothesis: str) -> ErrorCounts:
    """S, D, I and N between two texts after :func:`normalize_words`."""
    return align_counts(normalize_words(reference), normalize_words(hypothesis))


# ---- entities -------------------------------------------------------------------------

_NUMBER_WORDS: Final = frozenset(
    [*_UNITS, *_TEENS, *_TENS, *_SCALES, "hundred", *_ORDINALS]) - {"oh", "second"}
_CLOCK: Final = re.compile(
    r"\b[0-9]{1,2}:[0-9]{2}(?:\s?[AaPp]\.?\s?[Mm]\b\.?)?"
    r"|\b[0-9]{1,2}\s?[AaPp]\.\s?[Mm]\b\.?|\b[0-9]{1,2}\s?[AaPp][Mm]\b"
    r"|\b[A-Za-z]+(?:[- ][a-z]+)?\so'clock\b"
)
_DIGITS: Final = re.compile(r"[0-9][0-9,.]*[0-9]|[0-9]")
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'\u2019]*")
_SENTENCE_END: Final = re.compile(r"[.!?:;]\s*$")
_NOT_NAMES: Final = frozenset({"I", "I'm", "I'll", "I've", "I'd", "OK"})


def _number_word_runs(text: str) -> list[str]:
    """Runs of spelled numbers in ``text`` ("twenty eight point eight", "one")."""
    runs: list[str] = []
    current: list[str] = []
    for token in re.findall(r"[A-Za-z]+|[^A-Za-z\s]+", text.replace("-", " ")):
        low = token.lower()
        if low in _NUMBER_WORDS or (current and low in ("point", "and")):
            current.append(low)
            continue
        while current and current[-1] in ("point", "and"):
            current.pop()
        if current:
            runs.append(" ".join(current))
        current = []
    while current and current[-1] in ("point", "and"):
        current.pop()
    if current:
        runs.append(" ".join(current))
    return runs


def _names(text: str) -> list[str]:
    """Capitalised words (and runs of them) that do not start a sentence.

    A Title Case text ("Call-Forward on No Answer.") has no names by this rule: when most
    of its words are capitalised, capitals say nothing about names.
    """
    words = _WORD.findall(text)
    if len(words) > 1 and sum(w[0].isupper() for w in words) * 2 > len(words):
        return []
    names: list[str] = []
    run: list[str] = []
    last_end = 0
    for match in _WORD.finditer(text):
        word = match.group(0)
        gap = text[last_end:match.start()]
        sentence_start = last_end == 0 or bool(_SENTENCE_END.search(text[:match.start()]))
        capital = word[0].isupper() and word not in _NOT_NAMES
        if run and (not capital or gap.strip()):
            names.append(" ".join(run))
            run = []
        if capital and (run or not sentence_start):
            run.append(word)
        last_end = match.end()
    if run:
        names.append(" ".join(run))
    return names


def reference_entities(reference: str) -> list[tuple[str, ...]]:
    """The entities of a written reference, each as its normalised words."""
    found: list[str] = []
    rest = reference
    for match in _CLOCK.finditer(reference):
        found.append(match.group(0))
    rest = _CLOCK.sub(" ; ", rest)
    found += _DIGITS.findall(rest)
    found += _number_word_runs(_DIGITS.sub(" ; ", rest))
    found += _names(rest)
    entities = [tuple(normalize_words(e)) for e in found]
    return [e for e in entities if e]


def _occurrences(words: Sequence[str], entity: tuple[str, ...]) -> int:
    """Non-overlapping occurrences of ``entity`` as a contiguous run in ``words``."""
    count, i, n = 0, 0, len(entity)
    while i + n <= len(words):
        if tuple(words[i:i + n]) == entity:
            count, i = count + 1, i + n
        else:
            i += 1
    return count


def entity_errors(reference: str, hypothesis: str) -> tuple[int, int]:
    """(entities of the reference missing from the hypothesis, entities in the reference)."""
    entities = Counter(reference_entities(reference))
    hyp = normalize_words(hypothesis)
    missed = sum(max(0, n - _occurrences(hyp, e)) for e, n in entities.items())
    return missed, sum(entities.values())


def pooled(counts: Iterable[ErrorCounts]) -> ErrorCounts:
    """The sum of many files' counts (pooled WER: all errors over all reference words)."""
    total = ErrorCounts(0, 0, 0, 0)
    for c in counts:
        total = total + c
    return total
