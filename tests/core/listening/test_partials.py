"""Partial transcripts: when one is launched, what two of them commit, where the audio is cut."""

from __future__ import annotations

import pytest

from desktop_agent.core.listening.partials import (
    COVER_MARGIN_S,
    CUT_PREROLL_S,
    PARTIAL_SPACING_S,
    PAUSE_S,
    Launch,
    PartialSettings,
    PartialTrack,
    agreed_words,
    commit_after_pause,
    join_transcript,
)

RATE = 16_000


def s(seconds: float) -> int:
    """Seconds as samples."""
    return int(round(seconds * RATE))


@pytest.mark.parametrize(
    ("first", "second", "agreed"),
    [
        ("What is the capital of", "What is the capital of France?", 5),
        ("What is the capital of?", "what is the capital, of France", 5),  # case, punctuation
        ("What is the capital of friend?", "What is the capital of France?", 5),
        ("How many legs", "How many legs", 3),
        ("Press one", "press 1", 1),  # a word written two ways is not the same word
        ("", "anything", 0),
        ("cold-hearted and", "cold hearted and", 0),  # one word against two
    ],
)
def test_agreed_words_counts_the_common_leading_words(first: str, second: str,
                                                      agreed: int) -> None:
    assert agreed_words(first, second) == agreed


def test_a_pause_partial_is_committed_whole_in_the_words_of_the_later_one() -> None:
    assert commit_after_pause("What is the capital of?",
                              "What is the capital of France?") == "What is the capital of"
    # the later partial heard nothing more yet: its words still agree with all of it
    assert commit_after_pause("How many legs", "How many legs.") == "How many legs."


def test_a_pause_partial_the_later_one_revises_commits_nothing() -> None:
    assert commit_after_pause("What is the capital of friend", "What is the capital of "
                              "France and Spain") is None
    assert commit_after_pause("Press one to", "Press one") is None  # shorter: not all agreed
    assert commit_after_pause("", "Press one") is None


def test_join_transcript_skips_empty_parts() -> None:
    assert join_transcript("What is the capital of", " France? ") == \
        "What is the capital of France?"
    assert join_transcript("", "Hello.") == "Hello."
    assert join_transcript("Hello.", "") == "Hello."


COMMITS = PartialSettings(min_commit_words=1)
"""Commits on (the app has them off: they cost accuracy, see the module doc)."""


class Timeline:
    """A recording heard frame by frame: speech and pauses, and the partials launched."""

    def __init__(self, settings: PartialSettings = COMMITS) -> None:
        self.track = PartialTrack(start=0, rate=RATE, settings=settings)
        self.end = 0
        self.last_speech: int | None = None
        self.launched_at = -10.0
        self.launches: list[tuple[Launch, int]] = []

    def speak(self, seconds: float) -> None:
        self.end += s(seconds)
        self.last_speech = self.end

    def pause(self, seconds: float) -> None:
        self.end += s(seconds)

    def poll(self) -> Launch | None:
        launch = self.track.next_launch(end=self.end, judged_end=self.end,
                                        last_speech=self.last_speech,
                                        since_launch_s=self.end / RATE - self.launched_at)
        if launch is not None:
            self.launched_at = self.end / RATE
            self.launches.append((launch, self.end))
        return launch

    def back(self, text: str) -> None:
        """The newest launched partial answered with ``text`` (its whole transcript)."""
        launch, end = self.launches[-1]
        self.track.add(launch, end, text)


def test_no_partial_before_speech_or_before_the_first_audio() -> None:
    t = Timeline()
    t.pause(1.0)
    assert t.poll() is None  # no speech at all
    t = Timeline()
    t.speak(0.3)
    t.pause(0.2)
    assert t.poll() is None  # 0.5 s of audio: too short to be worth a pass


def test_a_pause_launches_at_once_and_a_covered_recording_launches_nothing() -> None:
    t = Timeline()
    t.speak(1.0)
    t.pause(PAUSE_S / 2)
    first = t.poll()
    assert first is not None and first.pause_end is None  # the first pass is due
    t.back("What is")
    t.speak(0.3)
    t.pause(PAUSE_S / 2)
    assert t.poll() is None  # mid-speech, 0.8 s not over
    t.pause(PAUSE_S)
    pause = t.poll()
    assert pause is not None and pause.pause_end == t.end
    t.back("What is the time?")
    t.pause(1.0)
    assert t.poll() is None  # silence since: nothing new to hear


def test_while_speech_goes_on_a_pass_is_due_every_spacing() -> None:
    t = Timeline()
    t.speak(0.7)
    assert t.poll() is not None
    t.back("Tell me")
    t.speak(PARTIAL_SPACING_S - 0.05)
    assert t.poll() is None
    t.speak(0.05)
    launch = t.poll()
    assert launch is not None and launch.pause_end is None


def test_two_agreeing_partials_commit_and_later_passes_decode_after_the_pause() -> None:
    t = Timeline()
    t.speak(1.4)
    t.pause(0.1)
    t.poll()
    t.back("What is the capital of?")
    pause_end = t.end
    assert t.track.committed == "" and t.track.audio_start() == 0  # one partial is no agreement
    t.speak(0.85)
    launch = t.poll()
    assert launch is not None and launch.audio_start == 0 and launch.context == ""
    t.back("What is the capital of France?")
    assert t.track.committed == "What is the capital of"
    assert t.track.cut == pause_end
    assert t.track.audio_start() == pause_end - s(CUT_PREROLL_S)
    t.speak(0.85)
    later = t.poll()
    assert later is not None
    assert later.audio_start == pause_end - s(CUT_PREROLL_S)
    assert later.context == "What is the capital of"


def test_the_app_commits_nothing_by_default() -> None:
    t = Timeline(PartialSettings())
    t.speak(1.4)
    t.pause(0.1)
    t.poll()
    t.back("What is the capital of?")
    t.speak(0.85)
    launch = t.poll()
    assert launch is not None
    t.back("What is the capital of France?")
    assert t.track.committed == "" and t.track.audio_start() == 0


def test_sentences_only_commits_a_pause_partial_that_ends_a_sentence() -> None:
    t = Timeline(PartialSettings(min_commit_words=1, sentences_only=True))
    t.speak(1.4)
    t.pause(0.1)
    t.poll()
    t.back("Press 1 to")  # a pause in the middle of a sentence
    t.speak(0.85)
    t.pause(0.1)
    t.poll()
    t.back("Press 1 to accept.")
    assert t.track.committed == ""
    cut = t.end
    t.speak(0.85)
    t.poll()
    t.back("Press 1 to accept. Press 2")
    assert t.track.committed == "Press 1 to accept." and t.track.cut == cut


def test_a_commit_needs_the_fewest_words_set() -> None:
    t = Timeline(PartialSettings(min_commit_words=3))
    t.speak(1.0)
    t.pause(0.1)
    t.poll()
    t.back("Press")
    t.speak(0.85)
    t.pause(0.1)
    t.poll()
    t.back("Press 1 to accept")
    assert t.track.committed == ""  # one word is too few
    t.speak(0.85)
    t.poll()
    t.back("Press 1 to accept this")
    assert t.track.committed == "Press 1 to accept"


def test_a_revised_pause_partial_is_not_committed() -> None:
    t = Timeline()
    t.speak(1.4)
    t.pause(0.1)
    t.poll()
    t.back("What is the capital of friend")
    t.speak(0.85)
    t.poll()
    t.back("What is the capital of France and")
    assert t.track.committed == "" and t.track.cut is None


def test_commits_grow_pause_by_pause() -> None:
    t = Timeline()
    t.speak(1.2)
    t.pause(0.1)
    t.poll()
    t.back("Using your keypad,")
    t.speak(1.0)
    t.pause(0.1)
    t.poll()  # a pause partial that also agrees with the one before
    t.back("Using your keypad, use the 7 key")
    assert t.track.committed == "Using your keypad,"
    second_pause = t.end
    t.speak(1.0)
    assert t.poll() is not None
    t.back("Using your keypad, use the 7 key for Q")
    assert t.track.committed == "Using your keypad, use the 7 key"
    assert t.track.cut == second_pause


def test_a_partial_that_heard_no_speech_moves_only_the_tried_end() -> None:
    t = Timeline()
    t.speak(0.85)
    t.pause(0.1)
    t.poll()
    t.back("")  # a cough
    assert t.track.newest == "" and t.track.tried_end == t.end
    t.pause(0.5)
    assert t.poll() is None  # it heard every frame already


def test_covers_needs_the_margin_after_the_last_speech_frame() -> None:
    track = PartialTrack(start=0, rate=RATE)
    last = s(2.0)
    assert not track.covers(last + s(COVER_MARGIN_S) - 1, last)
    assert track.covers(last + s(COVER_MARGIN_S), last)
    assert not track.covers(s(5.0), None)


def test_a_late_answer_of_an_older_pass_changes_nothing() -> None:
    track = PartialTrack(start=0, rate=RATE, settings=COMMITS)
    track.add(Launch(0, "", None), s(2.0), "What is the capital of France")
    track.add(Launch(0, "", None), s(1.0), "What is the")
    assert track.newest == "What is the capital of France" and track.newest_end == s(2.0)
