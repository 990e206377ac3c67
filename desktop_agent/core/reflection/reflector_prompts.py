"""Prompts of the reflector and of model-written continuations (fixed text, no clock)."""

from __future__ import annotations

from typing import Final

from desktop_agent.core.ports import ChatMessage
from desktop_agent.core.reflection.checks import SentenceCheck

REFLECTOR_SYSTEM: Final = (
    "You fact-check what a speaker has just said aloud. You get a QUESTION and the "
    "UTTERANCE spoken so far. Skeptically check its specific claims (facts, figures, "
    "arithmetic, examples) and every explicit constraint of the question, literally. "
    "Verdicts: good = correct and sufficient, nothing to add; refine = essentially right "
    "but incomplete or imprecise; repair = contains a real factual or logical error; "
    "working = an unfinished thought that is not wrong yet. Be strict about real errors "
    "but do not invent problems: if it is right, say good. Guidance: if not good, one "
    "short sentence with the correct substance.")
"""The model reflector's instructions (used only when no literal check applies)."""

VERDICT_SCHEMA: Final = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["good", "refine", "repair", "working"]},
        "guidance": {"type": "string"},
    },
    "required": ["verdict", "guidance"],
}
"""The fixed JSON schema of the reflector's answer (a grammar is built from it once)."""

CONTINUE_SYSTEM: Final = (
    "You continue a spoken answer mid-speech. The UTTERANCE was already said aloud and "
    "cannot change: do not repeat it. Output only the words that come next, in spoken "
    "prose, at most two short sentences. Never apologise and never say that anything was "
    "wrong.")
SENTENCE_SYSTEM: Final = (
    "You write exactly one sentence that meets the task's constraint. Output only that "
    "sentence, nothing before or after it.")


def reflector_messages(question: str, utterance: str) -> list[ChatMessage]:
    """The model reflector's prompt."""
    return [ChatMessage("system", REFLECTOR_SYSTEM),
            ChatMessage("user", f"QUESTION: {question}\nUTTERANCE: {utterance}")]


EXACT_EXAMPLES: Final = {
    2: ("birds", "Birds sing."),
    3: ("dogs", "Dogs love walks."),
    4: ("the sun", "The sun feels warm."),
    5: ("the park", "Children play in the park."),
    6: ("bread", "Fresh bread smells warm and sweet."),
    7: ("books", "I read a good book every week."),
    8: ("trains", "The old train rolls slowly through the valley."),
    9: ("gardens", "My garden is full of roses and bright tulips."),
    10: ("music", "We listened to soft music while the rain kept falling."),
    11: ("bread", "The little bakery on our street sells fresh bread every morning."),
    12: ("summer", "Every summer we drive to the quiet lake and swim until sunset."),
}
"""One sentence of each length, shown before a word-count task: the small model cannot
count, but it imitates the length of an example (a grammar enforces the count)."""
GROWING_EXAMPLES: Final = {
    3: "I eat bread.",
    4: "A big brown rabbit.",
    5: "I am the best player.",
    6: "I am the last person standing.",
    7: "I am the only person thinking carefully.",
}
"""Sentences whose every word is longer than the one before, by number of words."""
CONTAINS_EXAMPLE: Final = ('Write one sentence that uses the words "bread" and "window".',
                           "The bread cooled by the window.")
STARTS_EXAMPLE: Final = ('Write a sentence that starts with the word "Tomorrow".',
                         "Tomorrow we will visit the museum.")


def _example(check: SentenceCheck) -> tuple[str, str] | None:
    """A solved task with the same kind of constraint as ``check`` (None: none fits)."""
    if check.increasing:
        if check.n in GROWING_EXAMPLES:
            return (f"Write a sentence of {check.n} words where each word is longer than the "
                    "one before.", GROWING_EXAMPLES[check.n])
        return None
    if check.n is not None:
        if check.n not in EXACT_EXAMPLES:
            return None
        topic, sentence = EXACT_EXAMPLES[check.n]
        return f"Write one sentence of exactly {check.n} words about {topic}.", sentence
    if check.contains:
        return CONTAINS_EXAMPLE
    return STARTS_EXAMPLE if check.starts else None


def _task(question: str) -> str:
    return f"TASK: {question}\nWrite the sentence now."


def sentence_messages(question: str, check: SentenceCheck | None = None) -> list[ChatMessage]:
    """The prompt of a new attempt at a sentence task (a continuation, or a grammar run).

    With ``check``, a solved example of the same constraint comes first (fixed text, so
    the evaluated prompt prefix can be kept between runs).
    """
    messages = [ChatMessage("system", SENTENCE_SYSTEM)]
    example = _example(check) if check is not None else None
    if example is not None:
        messages += [ChatMessage("user", _task(example[0])),
                     ChatMessage("assistant", example[1])]
    return [*messages, ChatMessage("user", _task(question))]


def continuation_messages(question: str, utterance: str, guidance: str, *,
                          sentence_task: bool) -> tuple[ChatMessage, ...]:
    """A continuation's prompt: the guidance folded into what comes next.

    Args:
        question: The user's question.
        utterance: What was said so far (heard words, repairs included).
        guidance: What the reflector found ('' for a plain continuation: 'working').
        sentence_task: The question asks for a sentence with a literal constraint: the
            continuation is a new attempt at that sentence (the guidance is not shown).
    """
    if sentence_task:
        # The task alone: told what failed ("The sentence has 8 words; it needs exactly 6"),
        # the small model read it aloud instead of writing a sentence.
        return tuple(sentence_messages(question))
    note = f"\nGUIDANCE: {guidance}" if guidance else ""
    return (ChatMessage("system", CONTINUE_SYSTEM),
            ChatMessage("user", f"QUESTION: {question}\nUTTERANCE: {utterance}{note}\n"
                                "Continue the utterance."))
