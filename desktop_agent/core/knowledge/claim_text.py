"""Words, numbers and sentences of passages and claims, as the support gate compares them.

Rules (each a constant or a small function below):

* Words are runs of letters and digits, lower-cased; "don't", "can't", "cannot", "won't"
  become "do not", "can not", "can not", "will not", so a negation is the word "not".
* Numbers: digits as written ("1.5", "24", "£5" -> "5", "10:30") and number words
  ("five", "twenty four", "twenty-four" -> "24") compare equal.
* Codes: a letter run glued to digits ("E2", "B12") is a named item; so is "e two" as
  speech recognition writes it (joined to "e2" in questions).
* Candidate sentences: a passage is split at sentence ends and line breaks between
  sentences; a Markdown table row ("| E2 | Low water pressure | ... |") is one sentence,
  spoken as "E2: Low water pressure. ..."; headings are context, not sentences (a list
  item is never a heading); a list item carries the short line that opens its list
  ("Covered for 6 months only: the milk frother wand").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from desktop_agent.core.text.number_words import ONES, TENS

NEGATIONS: Final = frozenset({"not", "never", "no", "none", "nothing", "nor", "without",
                              "neither", "nobody", "only", "except"})
"""Words that flip or narrow a statement: a claim must keep and may not add them."""
CONDITIONS: Final = frozenset({"if", "when", "unless", "only", "before", "after", "while",
                               "until", "except", "once", "provided"})
"""Words that open a condition: a claim must keep and may not add them."""
STOP: Final = frozenset("""
a an the and or but of to in on at for by with from into onto up as is are was were be been
being am do does did doing have has had having i me my we our you your it its this that these
those there here what whats which who whom whose how why where can could should would will
shall may might must s t please tell say said about any some much many often long get got
know want need okay ok so then than just also too very does mean means meaning there's
he him his she her hers they them their theirs ours yours myself yourself
ve ll re d m im
""".split())
"""Words that say nothing about the topic (question words, auxiliaries, articles)."""

_CONTRACTIONS: Final = (
    (re.compile(r"\bcan['’]t\b", re.I), "can not"),
    (re.compile(r"\bcannot\b", re.I), "can not"),
    (re.compile(r"\bwon['’]t\b", re.I), "will not"),
    (re.compile(r"\bshan['’]t\b", re.I), "shall not"),
    (re.compile(r"(\w)n['’]t\b", re.I), r"\1 not"),
    (re.compile(r"['’](s|re|ll|ve|d|m)\b", re.I), r" \1"),
)
_WORD: Final = re.compile(r"\d+(?:[.:,]\d+)*|[^\W\d_]+(?:\d+[^\W\d_]*)?", re.UNICODE)
_CODE: Final = re.compile(r"^(?=[a-z]*\d)[a-z]{1,3}\d{1,4}[a-z]?$")
_NUMBER_WORDS: Final = {w: i for i, w in enumerate(ONES)} | {
    w: 10 * i for i, w in enumerate(TENS) if w} | {"dozen": 12}
_SCALE: Final = {"hundred": 100, "thousand": 1000}


def expand(text: str) -> str:
    """``text`` with contractions spelled out ("don't" -> "do not")."""
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    return text


def words(text: str) -> list[str]:
    """Lower-case words of ``text``.

    Contractions are expanded, hyphens split, number separators kept inside numbers:
    "1,000" -> "1000", "1.5" stays.
    """
    out = []
    for w in _WORD.findall(expand(text).replace("-", " ")):
        w = w.lower()
        if w[0].isdigit():
            w = w.replace(",", "").rstrip(".:")
        out.append(w)
    return out


def numbers(tokens: list[str]) -> list[str]:
    """The numbers in ``tokens`` as digit strings, number words converted.

    "twenty four" and "twenty-four" -> "24"; "one hundred" -> "100"; "1.50" -> "1.5".
    """
    out: list[str] = []
    value: int | None = None
    for tok in [*tokens, ""]:
        if tok in _NUMBER_WORDS:
            n = _NUMBER_WORDS[tok]
            tail = value % 100 if value is not None else None
            if value is not None and tail is not None and (
                    (tail >= 20 and tail % 10 == 0 and n < 10)
                    or (tail == 0 and value >= 100 and n < 100)):
                value += n  # "twenty four", "one hundred five"
                continue
            if value is not None:
                out.append(str(value))
            value = n
            continue
        if tok in _SCALE and value is not None:
            value *= _SCALE[tok]
            continue
        if value is not None:
            out.append(str(value))
            value = None
        if tok and tok[0].isdigit():
            out.append(_canonical_digits(tok))
    return out


def _canonical_digits(tok: str) -> str:
    if "." in tok and ":" not in tok:
        whole, _, frac = tok.partition(".")
        frac = frac.rstrip("0")
        return f"{int(whole or '0')}.{frac}" if frac else str(int(whole or "0"))
    return tok.lstrip("0") or "0" if tok.isdigit() else tok


def codes(tokens: list[str]) -> list[str]:
    """Codes such as "e2", "b12" (a short letter run glued to digits)."""
    return [t for t in tokens if _CODE.match(t)]


_NOT_CODE_LETTERS: Final = frozenset({"a", "i", "m", "s", "t", "d"})
"""Single letters that are words or the tails of contractions ("I'm fifteen minutes late"
is no code "m15")."""


def join_spelled_codes(tokens: list[str]) -> list[str]:
    """"e", "two" -> "e2" and "e", "2" -> "e2": how speech recognition writes a code."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if len(t) == 1 and t.isalpha() and t not in _NOT_CODE_LETTERS and (
                nxt.isdigit() or nxt in _NUMBER_WORDS and _NUMBER_WORDS[nxt] < 20):
            out.append(t + (nxt if nxt.isdigit() else str(_NUMBER_WORDS[nxt])))
            i += 2
            continue
        out.append(t)
        i += 1
    return out


def named_items(text: str) -> list[str]:
    """Names and codes in ``text``: capitalised words not opening a sentence, and codes.

    Returned lower-case ("Aquaheat", "E2" -> "aquaheat", "e2").
    """
    found: list[str] = []
    for sentence in re.split(r"(?<=[.!?:;|])\s+|\n+", text):
        raw = _WORD.findall(sentence)
        for i, w in enumerate(raw):
            low = w.lower()
            if _CODE.match(low):
                found.append(low)
            elif i > 0 and w[0].isupper() and low not in STOP and low not in {"i"}:
                found.append(low)
    return found


_PERIODS: Final = {"daily": "day", "weekly": "week", "monthly": "month", "yearly": "year",
                   "hourly": "hour", "nightly": "night", "annually": "year"}
"""A period's adjective and its noun are one topic: "the weekly price" ~ "a week"."""


def stem(word: str) -> str:
    """A crude stem for matching topic words.

    "bookings" ~ "booked" ~ "book", "comes" ~ "come", "heating" ~ "heat", "fees" ~ "fee",
    "stopped" ~ "stop", "batteries" ~ "battery", "used" ~ "use", "weekly" ~ "week".
    Numbers and codes are left alone.
    """
    if not word.isalpha() or len(word) <= 3:
        return word
    if word in _PERIODS:
        return _PERIODS[word]
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith("ss"):
        word = word[:-2] if word.endswith(("sses", "xes", "ches", "shes")) else word[:-1]
    if word.endswith("ed") and len(word) <= 5:
        word = word[:-1]  # "used" -> "use", "owed" -> "owe"
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]  # "stopped" -> "stop"
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def topic_terms(text: str) -> list[str]:
    """Stems of the words of ``text`` that carry its topic.

    No stop words, negations or condition words; spelled codes joined, numbers canonical.
    """
    toks = join_spelled_codes(words(text))
    out = []
    for t in toks:
        if t in STOP or t in NEGATIONS or t in CONDITIONS:
            continue
        out.append(_canonical_digits(t) if t[0].isdigit() else stem(t))
    return out


def subject_terms(title: str) -> set[str]:
    """The topic terms of a file's name: its document's subject ("gym_terms.md" -> gym)."""
    return set(topic_terms(title.rsplit(".", 1)[0].replace("_", " ")))


def topic_words(text: str) -> dict[str, str]:
    """The topic words of ``text`` as spoken, by stem: what ``topic_terms`` keeps.

    "fixing the bikes" -> {"fix": "fixing", "bike": "bikes"} (the first spelling of a stem).
    """
    out: dict[str, str] = {}
    for t in join_spelled_codes(words(text)):
        if t in STOP or t in NEGATIONS or t in CONDITIONS:
            continue
        out.setdefault(_canonical_digits(t) if t[0].isdigit() else stem(t), t)
    return out


@dataclass(frozen=True, slots=True)
class Sentence:
    """One candidate sentence of a passage."""

    text: str
    """Speakable text (table cells joined, Markdown marks removed)."""
    start: int
    """Offset of the raw sentence in ``Passage.text``."""
    end: int
    context: str = ""
    """The heading above the sentence (used for ranking, never spoken)."""

    def raw(self, passage_text: str) -> str:
        """The sentence verbatim from the passage."""
        return passage_text[self.start:self.end]


_SENTENCE_END: Final = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9£$€])")
_BULLET: Final = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_DASH: Final = re.compile(r"^\s*[-*+•]\s+")
_TABLE_RULE: Final = re.compile(r"^\s*\|?[\s:|-]+\|?\s*$")


def sentences(text: str) -> list[Sentence]:
    """The candidate sentences of a passage, in order (see the module docstring)."""
    out: list[Sentence] = []
    heading = ""
    opener = ""  # the line that opens a list ("The following are covered for 6 months only:")
    opener_indent = -1  # the indentation of its items, once the first is seen
    for block_start, block in _blocks(text):
        stripped = block.strip()
        if not stripped:
            continue
        bullet = _BULLET.match(block.lstrip())
        dash = _DASH.match(block.lstrip())  # "- Check-up: £25" is content; "1. Overview" a title
        if stripped.startswith("#") or (not dash and _is_heading(stripped)):
            heading = stripped.lstrip("#").strip()
            opener = ""
            continue
        if stripped.startswith("|") or stripped.count("|") >= 2:
            if _TABLE_RULE.match(stripped):
                continue
            cells = [c.strip() for c in stripped.strip("|").split("|") if c.strip()]
            if cells:
                spoken = _join_cells(cells)
                lead = len(block) - len(block.lstrip())
                out.append(Sentence(spoken, block_start + lead,
                                    block_start + len(block.rstrip()), heading))
                opener = ""
            continue
        body_offset = block_start + len(block) - len(block.lstrip())
        body = block.lstrip()
        if bullet:
            body_offset += bullet.end()
            body = body[bullet.end():]
        indent = len(block) - len(block.lstrip())
        if not bullet:
            item_lead, opener, opener_indent = "", _list_lead(stripped), -1
        else:
            # Only the items of the list the line opens, not a list nested in them ("the
            # following for 6 months only:" opens its own, and no line carries into it).
            if opener and opener_indent < 0:
                opener_indent = indent
            item_lead = opener if indent == opener_indent else ""
        pos = 0
        for piece in _SENTENCE_END.split(body):
            at = body.find(piece, pos)
            pos = at + len(piece)
            piece_text = " ".join(piece.split())
            if len(piece_text) < 3 or not any(c.isalnum() for c in piece_text):
                continue
            spoken = _clean_inline(piece_text)
            if item_lead:  # a list item says nothing without the line that opens the list
                spoken, item_lead = f"{item_lead} {spoken}", ""
            out.append(Sentence(spoken, body_offset + at,
                                body_offset + at + len(piece.rstrip()), heading))
    return out


LEAD_MAX_WORDS: Final = 16
"""Longest line that is carried into the items of the list it opens."""


def _list_lead(block: str) -> str:
    """The last sentence of ``block`` when it opens a list (ends with ":"), else ''."""
    if not block.endswith(":"):
        return ""
    last = _SENTENCE_END.split(" ".join(block.split()))[-1]
    return _clean_inline(last) if len(last.split()) <= LEAD_MAX_WORDS else ""


def _is_heading(block: str) -> bool:
    """A short line without a sentence end ("Water pressure", "WIFI", a table's header)."""
    return ("\n" not in block and block[-1] not in ".!?:;,)" and len(block.split()) <= 6
            and "|" not in block)


def _blocks(text: str) -> list[tuple[int, str]]:
    """Lines joined into blocks.

    A wrapped prose line continues the block when the previous line does not end a
    sentence and the next starts in lower case or with a digit.
    """
    blocks: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\n")
        if blocks and content.strip() and _continues(blocks[-1][1], content):
            start, prev = blocks[-1]
            blocks[-1] = (start, prev + "\n" + content)
        else:
            blocks.append((offset, content))
        offset += len(line)
    return blocks


def _continues(previous: str, line: str) -> bool:
    prev = previous.rstrip()
    nxt = line.lstrip()
    if not prev or prev.lstrip().startswith(("#", "|")) or nxt.startswith(("#", "|")):
        return False
    if _BULLET.match(nxt):
        return False
    return prev[-1] not in ".!?:" and (nxt[0].islower() or nxt[0].isdigit())


def _clean_inline(text: str) -> str:
    text = re.sub(r"[*_`]+", "", text)
    return re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip()


def _join_cells(cells: list[str]) -> str:
    """Table cells as one speakable sentence: "E2: Low water pressure. Top up to ..."."""
    cleaned = [_clean_inline(c).rstrip(".") for c in cells]
    if len(cleaned) == 1:
        return cleaned[0] + "."
    return f"{cleaned[0]}: " + ". ".join(cleaned[1:]) + "."
