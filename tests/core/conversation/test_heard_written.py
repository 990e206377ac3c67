"""What the history keeps of a reply: the heard words in their written form (digits)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import heard_so_far, written_prefix
from desktop_agent.core.ports import WordTiming
from desktop_agent.core.text.normalize import normalize_for_speech

RATE = 1000


@dataclass(frozen=True)
class Chunk:
    """A spoken chunk as TtsChunkReady carries it: spoken text, timings, written text."""

    text: str
    n_samples: int
    sample_rate: int
    words: tuple[WordTiming, ...]
    written_text: str = ""


def _chunk(written: str, per_word: int = 100) -> Chunk:
    spoken = normalize_for_speech(written)
    words = tuple(WordTiming(w, i * per_word, (i + 1) * per_word)
                  for i, w in enumerate(spoken.split()))
    return Chunk(spoken, len(words) * per_word, RATE, words, written)


def test_a_reply_heard_to_the_end_keeps_digits() -> None:
    chunks = [_chunk("The meeting is at 14:30."), _chunk("Bring 3 copies.")]
    report = heard_so_far(TurnId(1), chunks, sum(c.n_samples for c in chunks),
                          interrupted=False)
    assert report.heard_text == "The meeting is at two thirty p m. Bring three copies."
    assert report.heard_written == "The meeting is at 14:30. Bring 3 copies."


@pytest.mark.parametrize(("words_played", "expected"), [
    (0, ""),
    (4, "The meeting is at"),
    (6, "The meeting is at"),  # "two thirty" heard, "p m" not: 14:30 was not heard whole
    (8, "The meeting is at 14:30."),
    (9, "The meeting is at 14:30. Bring"),
])
def test_a_cut_reply_keeps_only_written_words_heard_whole(words_played: int,
                                                          expected: str) -> None:
    chunks = [_chunk("The meeting is at 14:30."), _chunk("Bring 3 copies.")]
    report = heard_so_far(TurnId(1), chunks, words_played * 100, interrupted=True)
    assert report.heard_written == expected
    assert report.interrupted


def test_chunks_without_written_text_keep_the_spoken_words() -> None:
    chunk = Chunk("hello there", 200, RATE, (WordTiming("hello", 0, 100),
                                             WordTiming("there", 100, 200)))
    assert heard_so_far(TurnId(1), [chunk], 200).heard_written == "hello there"


def test_written_prefix_never_claims_more_than_was_heard() -> None:
    written = "Call 0800 123 4567 by 5 pm, or e-mail help@example.com."
    total = len(normalize_for_speech(written).split())
    lengths = [len(normalize_for_speech(written_prefix(written, k, total)).split())
               for k in range(total + 1)]
    assert all(n <= k for k, n in enumerate(lengths))
    assert lengths == sorted(lengths) and written_prefix(written, total, total) == written


def test_the_history_keeps_the_written_form_of_what_was_heard() -> None:
    from desktop_agent.core.tools.registry import ToolRegistry
    from desktop_agent.runtime.headless import HeadlessExecutor
    from tests.fakes.llm import FakeLlm, say
    from tests.fakes.tts import FakeTts

    llm = FakeLlm(lambda messages: say("The meeting is at 14:30 with 3 people."))
    with HeadlessExecutor(llm, FakeTts(), ToolRegistry([])) as executor:
        turn = executor.ask_text("when is the meeting")
        assert turn.error is None
        kept = executor.machine.history.messages[-1]
    assert kept.role == "assistant" and not kept.interrupted
    assert kept.content == "The meeting is at 14:30 with 3 people."
