"""Prompts of the reflector and of model-written continuations (fixed text, no clock)."""

from __future__ import annotations

from typing import Final

from desktop_agent.core.ports import ChatMessage

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


def continuation_messages(question: str, utterance: str, guidance: str, *,
                          sentence_task: bool) -> tuple[ChatMessage, ...]:
    """A continuation's prompt: the guidance folded into what comes next.

    Args:
        question: The user's question.
        utterance: What was said so far (heard words, repairs included).
        guidance: What the reflector found ('' for a plain continuation: 'working').
        sentence_task: The question asks for a sentence with a literal constraint: the
            continuation is a new attempt at that sentence.
    """
    if sentence_task:
        note = f"\nThe last attempt failed: {guidance}" if guidance else ""
        return (ChatMessage("system", SENTENCE_SYSTEM),
                ChatMessage("user", f"TASK: {question}{note}\nWrite the sentence now."))
    note = f"\nGUIDANCE: {guidance}" if guidance else ""
    return (ChatMessage("system", CONTINUE_SYSTEM),
            ChatMessage("user", f"QUESTION: {question}\nUTTERANCE: {utterance}{note}\n"
                                "Continue the utterance."))
