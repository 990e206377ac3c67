"""Follow-ups to a grounded answer: repeat, rephrase, "which one?", corrections.

They work on the last plan's units and supported claims, never on a text offset, and
never add a fact: a repeat is the same units under a new generation; a rephrasing is
the same supported claims composed differently (conditions first, one claim per unit);
a referent clarification names what the answer was about from its own claims. A
correction gives the question to retrieve for, and the caller answers it as a new
question (a new generation, so every prepared unit of the old one is stale).
"""

from __future__ import annotations

import re
from dataclasses import replace
from enum import Enum
from typing import Final

from desktop_agent.core.knowledge.claim_text import codes, join_spelled_codes, named_items, words
from desktop_agent.core.knowledge.records import AnswerPlan, SpokenUnit


class Followup(Enum):
    """What a short utterance after an answer asks for."""

    REPEAT = "repeat"
    REPHRASE = "rephrase"
    WHICH = "which"
    CORRECTION = "correction"
    NONE = "none"


FollowUp = Followup
"""The same enum (both spellings are in use)."""


_REPEAT: Final = re.compile(
    r"^(?:(?:sorry|pardon|what|huh|come again|again|repeat(?: that| it| please)*"
    r"|say (?:that|it) again|one more time|once more|can you repeat(?: that| it)?"
    r"|could you repeat(?: that| it)?|what did you say|i didn t (?:hear|catch) (?:that|it))"
    r"(?: please)?)$")
_REPHRASE: Final = re.compile(
    r"^(?:(?:can you |could you )?(?:say (?:it|that) (?:differently|another way|"
    r"in other words|more simply)|in other words|rephrase(?: that| it)?|"
    r"put (?:it|that) (?:another way|differently|simply)|explain (?:that|it) (?:again|"
    r"differently)|i don t understand|what does that mean)(?: please)?)$")
_WHICH: Final = re.compile(
    r"^(?:which(?: one| ones| one is that| one do you mean| do you mean)?|"
    r"what are you (?:referring|talking) (?:to|about)|which (?:code|thing|one was that))"
    r"(?: please)?$")
_CORRECTION: Final = re.compile(
    r"^(?:actually|no(?: no)?|sorry|i meant|i mean|not that(?: one)?|rather|wait|oops)\b"
    r"(?:\s+(?:i meant|i mean|not that(?: one)?|sorry))*\s*")
_CORRECTS: Final = re.compile(
    r"^(?:(?:actually|i meant|i mean|rather|not that)\b\s*\S"
    r"|(?:no|sorry|wait|oops)\s+(?:i meant|i mean|not|the|it s|its|actually)\b)")
_QUESTION_START: Final = frozenset({"what", "how", "when", "where", "who", "which", "why",
                                    "can", "could", "do", "does", "is", "are", "should",
                                    "will", "may", "tell"})
_DETERMINERS: Final = frozenset({"the", "a", "an", "my", "our", "your", "this", "that"})
_PREPOSITIONS: Final = frozenset({"on", "at", "for", "in", "during", "with", "without",
                                  "after", "before", "from", "by", "if", "when"})
_VERBS: Final = frozenset({"mean", "means", "do", "does", "is", "are", "say", "says", "work",
                           "cost", "costs", "show", "shows", "happen", "open", "close",
                           "start", "stop", "need", "take", "go", "come", "flash",
                           "flashes", "flashing", "blink", "blinks", "indicate"})


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("'", " ")).split())


def classify_followup(text: str) -> Followup:
    """What ``text`` asks of the last answer (NONE: treat it as a new question)."""
    plain = _plain(text)
    if not plain:
        return Followup.NONE
    if _REPEAT.match(plain):
        return Followup.REPEAT
    if _REPHRASE.match(plain):
        return Followup.REPHRASE
    if _WHICH.match(plain):
        return Followup.WHICH
    if _CORRECTS.match(plain):
        return Followup.CORRECTION
    return Followup.NONE


def repeat_units(plan: AnswerPlan, *, generation: int | None = None) -> AnswerPlan:
    """The plan again: the same units under ``generation`` (default: the plan's + 1)."""
    gen = plan.generation + 1 if generation is None else generation
    return _again(plan, gen, tuple(SpokenUnit(u.key, gen, u.text, u.claim_keys, u.evidence,
                                              u.quotes) for u in plan.units))


def _again(plan: AnswerPlan, generation: int, units: tuple[SpokenUnit, ...]) -> AnswerPlan:
    """``plan`` with new ``units`` under ``generation`` (offers re-stamped too)."""
    offer = tuple(SpokenUnit(u.key, generation, u.text, u.claim_keys, u.evidence, u.quotes)
                  for u in plan.offer)
    return replace(plan, generation=generation, units=units, offer=offer)


def rephrase(plan: AnswerPlan, *, generation: int | None = None) -> AnswerPlan:
    """The same supported claims composed differently; no new facts.

    The conditions come first, then the answer; a table row is turned round. A
    limitation is repeated as it was.
    """
    gen = plan.generation + 1 if generation is None else generation
    if plan.limitation or not plan.units:
        return repeat_units(plan, generation=gen)
    by_key = {c.key: c for c in plan.claims}
    first = plan.units[0]
    claims = [by_key[k] for k in first.claim_keys if k in by_key]
    conds = [c for c in claims if c.role == "condition"]
    answers = [c for c in claims if c.role != "condition"]
    if conds:
        text = " ".join(_end(c.text) for c in [*conds, *answers])
        return _again(plan, gen, (SpokenUnit(
            "u1", gen, text, tuple(c.key for c in [*conds, *answers]), first.evidence,
            first.quotes),))
    parts = [p for p in re.split(r"(?<=[.!?:])\s+", first.text) if p.strip()]
    if len(parts) > 1 and answers:
        # A table row ("E2: Low water pressure. Top up ..."): the second part first,
        # keeping every part in the first unit so a condition stays with its answer.
        head, rest = parts[0].rstrip(":."), " ".join(parts[1:])
        text = f"{_end(rest)} That is for {head}."
        return _again(plan, gen, (SpokenUnit("u1", gen, text, first.claim_keys,
                                             first.evidence, first.quotes),))
    lead = first.text.split(maxsplit=1)
    if len(lead) == 2 and codes([lead[0].lower().strip(":,.")]):
        # A row of a table without cell marks ("E2 Low water pressure Top up ..."): name
        # the code first as a label.
        text = f"For {lead[0].strip(':,.')}: {lead[1]}"
    else:
        text = f"In other words: {first.text}"
    return _again(plan, gen, (SpokenUnit("u1", gen, text, first.claim_keys, first.evidence,
                                         first.quotes),))


def clarify_referent(plan: AnswerPlan, *, generation: int | None = None) -> AnswerPlan:
    """A plan of one unit naming what the last answer referred to, from its claims.

    E.g. "I meant E2: Low water pressure." for a plan answering with the E2 row.
    """
    gen = plan.generation + 1 if generation is None else generation
    answers = [c for c in plan.claims if c.role == "answer"]
    if plan.limitation or not answers:
        return _again(plan, gen, (SpokenUnit(
            "u1", gen, "I didn't find an answer, so I wasn't referring to anything.",
            (), (), ()),))
    claim = answers[0]
    first = re.split(r"(?<=[.!?])\s+", claim.text.strip())[0].rstrip(".!?")
    names = [n for n in dict.fromkeys([*codes(words(claim.text)), *named_items(claim.text)])]
    if names and not any(n in first.lower() for n in names):
        first = f"{names[0].upper() if codes([names[0]]) else names[0].title()}: {first}"
    quotes = tuple(q for u in plan.units for q in u.quotes if claim.key in u.claim_keys)
    unit = SpokenUnit("u1", gen, f"I meant {first}.", (claim.key,), claim.evidence, quotes)
    return replace(_again(plan, gen, (unit,)), offer=())


def corrected_question(previous_question: str, correction: str) -> str:
    """The question to retrieve for after a correction of ``previous_question``.

    "actually, what about guests" is a question of its own; "no, I meant E4" swaps the code
    ("what does E2 mean" -> "what does E4 mean"); "actually, the opened one" swaps the
    describing words of the question's noun ("what does the red light mean" -> "what does
    the opened light mean"); "actually, on weekends" is added to the question.
    """
    prev = " ".join(previous_question.split()).rstrip("?.! ")
    plain = _plain(correction)
    head = _CORRECTION.match(plain)
    rest = plain[head.end():] if head else plain
    rest = rest.strip()
    if not rest:
        return prev
    rest_words = rest.split()
    if rest_words[0] in _QUESTION_START and len(rest_words) >= 3:
        return rest
    new_codes = codes(join_spelled_codes(rest_words))
    prev_words = prev.split()
    if new_codes:
        old = [i for i, w in enumerate(prev_words)
               if codes(join_spelled_codes([_plain(w)]))]
        if old:
            prev_words[old[0]] = new_codes[0].upper()
            return " ".join(prev_words)
    if rest_words[0] in _PREPOSITIONS:
        return f"{prev} {rest}"
    if rest_words[0] in _DETERMINERS:
        rest_words = rest_words[1:]
    lower = [_plain(w) for w in prev_words]
    phrase = _noun_phrase(lower)
    if phrase is not None and rest_words:
        start, end = phrase  # modifiers prev_words[start:end-1], noun prev_words[end-1]
        if rest_words[-1] in {"one", "ones"}:
            new = [*prev_words[:start], *rest_words[:-1], *prev_words[end - 1:]]
        else:
            new = [*prev_words[:start], *rest_words, *prev_words[end:]]
        return " ".join(new)
    return f"{prev} {rest}"


def _noun_phrase(lower: list[str]) -> tuple[int, int] | None:
    """The span of the question's last noun phrase, or None.

    Returns (first word after the last determiner, one past the noun): the phrase runs
    from the determiner to a verb, a preposition or the end.
    """
    dets = [i for i, w in enumerate(lower) if w in _DETERMINERS]
    if not dets:
        return None
    start = dets[-1] + 1
    end = start
    while end < len(lower) and lower[end] not in _VERBS and lower[end] not in _PREPOSITIONS \
            and not (lower[end].endswith("ed") and end > start):  # "collected", "used"
        end += 1
    return (start, end) if end > start else None


def _end(text: str) -> str:
    text = text.strip()
    return text if text[-1:] in ".!?" else text + "."
