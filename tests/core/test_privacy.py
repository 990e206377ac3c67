"""Redaction of what is persisted, and user words kept out of logs unless debug is on."""

from __future__ import annotations

import logging
import random
import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop_agent.core.privacy import (
    CARD_MARK,
    EMAIL_MARK,
    PHONE_MARK,
    luhn_ok,
    redact,
    retention_cutoff,
    said,
)


def _with_luhn_digit(body: str) -> str:
    """``body`` plus the check digit that makes it pass Luhn."""
    return next(body + d for d in "0123456789" if luhn_ok(body + d))


@pytest.mark.parametrize(("text", "expected"), [
    ("call me on 555-123-4567 today", f"call me on {PHONE_MARK} today"),
    ("+44 20 7946 0958", PHONE_MARK),
    ("(555) 123-4567.", f"{PHONE_MARK}."),
    ("ring 07700 900123", f"ring {PHONE_MARK}"),
    ("card 4111 1111 1111 1111 exp", f"card {CARD_MARK} exp"),
    ("card 4111-1111-1111-1111", f"card {CARD_MARK}"),
    ("amex 378282246310005", f"amex {CARD_MARK}"),
    ("write to bob.smith+x@mail.example.co.uk now", f"write to {EMAIL_MARK} now"),
])
def test_personal_numbers_and_addresses_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "at 14:30 on 2026-11-30",
    "1,250,000 people, pi is 3.14159265",
    "in 1999 there were 42 of them",
    "version 1.2.3.4 on 12/03/2026",
    "a timer for 25 minutes",
    "4111111111111112 fails its checksum",  # 16 digits, not Luhn: not a card; too long to dial
])
def test_times_dates_amounts_and_counts_stay(text: str) -> None:
    assert redact(text) == text


@given(body=st.text(alphabet="0123456789", min_size=12, max_size=18),
       sep=st.sampled_from(["", " ", "-"]),
       before=st.text(alphabet=string.ascii_letters + " ,.!?", max_size=20),
       after=st.text(alphabet=string.ascii_letters + " ,.!?", max_size=20))
def test_any_luhn_number_in_any_sentence_is_redacted(body: str, sep: str, before: str,
                                                     after: str) -> None:
    number = _with_luhn_digit(body)
    grouped = sep.join(number[i:i + 4] for i in range(0, len(number), 4))
    out = redact(f"{before} {grouped} {after}")
    assert grouped not in out and number not in out.replace(" ", "").replace("-", "")
    assert CARD_MARK in out


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd",), blacklist_characters="@")))
def test_text_without_digits_or_at_signs_is_never_changed(text: str) -> None:
    assert redact(text) == text


@given(st.text())
def test_redaction_never_fails_and_is_stable(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_luhn() -> None:
    assert luhn_ok("79927398713") and not luhn_ok("79927398710") and not luhn_ok("")
    rng = random.Random(7)
    for _ in range(200):
        body = "".join(rng.choice(string.digits) for _ in range(15))
        full = _with_luhn_digit(body)
        assert sum(luhn_ok(body + d) for d in string.digits) == 1 and luhn_ok(full)


def test_user_words_are_in_a_log_line_only_at_debug_level(
        caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("desktop_agent.test_privacy")
    words = "my number is 555-123-4567 and I like zebras"
    # A handler formats the line as it is emitted: read it while the level is in force.
    with caplog.at_level(logging.INFO, logger="desktop_agent"):
        log.info("turn=1 heard %s", said(words))
        assert caplog.messages[-1] == "turn=1 heard <8 words>"
    with caplog.at_level(logging.DEBUG, logger="desktop_agent"):
        log.info("turn=1 heard %s", said(words))
        assert caplog.messages[-1] == (
            f"turn=1 heard 'my number is {PHONE_MARK} and I like zebras'")
    assert str(said("one")) == "<1 word>"


def test_retention_cutoff() -> None:
    assert retention_cutoff(1000.0 + 2 * 86_400, 2) == 1000.0
    assert retention_cutoff(5.0, 0) == 5.0  # 0 days: everything older than now
