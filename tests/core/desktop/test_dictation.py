"""Dictation's words (core.desktop.dictation): Whisper's text kept, spoken forms mapped."""

from __future__ import annotations

import pytest

from desktop_agent.core.desktop.dictation import dictated_text, joined


@pytest.mark.parametrize(("heard", "typed"), [
    ("See you at nine.", "See you at nine."),  # capitals and punctuation as Whisper gives
    ("First line. New line. Second line full stop", "First line.\nSecond line."),
    ("Hello, new line, world", "Hello\nworld"),
    ("Dear Sam, new paragraph. thanks for the book.", "Dear Sam\n\nthanks for the book."),
    ("hello comma world", "hello, world"),
    ("Are you coming question mark", "Are you coming?"),
    ("Wow exclamation mark", "Wow!"),
    ("Version 2.5 is out. Next line. e.g. this", "Version 2.5 is out.\ne.g. this"),
    ("  spaced   out  ", "spaced out"),
    ("", ""),
])
def test_spoken_forms_are_mapped_and_the_rest_is_kept(heard: str, typed: str) -> None:
    assert dictated_text(heard) == typed


def test_a_later_dictation_continues_the_text_before() -> None:
    assert joined("", "Hello.") == "Hello."
    assert joined("Hello.", "How are you?") == " How are you?"
    assert joined("Dear Sam\n", "Thanks.") == "Thanks."
    assert joined("Hi.", "\nBye.") == "\nBye."
