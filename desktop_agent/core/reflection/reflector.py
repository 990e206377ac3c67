"""The reflector: a literal check when one applies, the model otherwise."""

from __future__ import annotations

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.reflection.checks import find_check
from desktop_agent.core.reflection.verdict import Judgement, Verdict, VerdictJudge


def applies(mode: str, question: str) -> bool:
    """Whether a reply to ``question`` is reflected under the setting ``mode``."""
    if mode == "on":
        return True
    return mode == "checkable" and find_check(question) is not None


def reflect(question: str, utterance: str, judge: VerdictJudge | None,
            cancel: CancelToken | None = None) -> Judgement:
    """Judge ``utterance`` as an answer to ``question``.

    A literal check decides when one applies (the model cannot see its own arithmetic or
    letter-count mistakes); otherwise ``judge`` (the model) does, and without one the
    utterance stands ('good', checker 'none').

    Runs on: a worker (the model may take a second); the checks alone are microseconds.
    """
    check = find_check(question)
    if check is not None:
        return check.judge(utterance)
    if judge is None:
        return Judgement(Verdict.GOOD, checker="none")
    return judge.judge(question, utterance, cancel)
