"""Privacy rules: what is redacted before anything is written, and what logs may show.

Redaction (``redact``), applied to everything the app writes about a conversation (the kept
history, the action ledger) and to the user's words in debug logs:

* an e-mail address -> ``[email]``;
* a card-like number (13 to 19 digits, spaces or dashes allowed between groups, passing the
  Luhn check) -> ``[card number]``;
* a phone number (7 to 15 digits, an optional leading ``+``, groups split by spaces, dashes,
  dots or parentheses) -> ``[phone number]``. Not a phone number: an ISO date
  (``2026-11-30``), a time (``14:30``), a decimal (``3.14159``), a count with thousands commas
  (``1,250,000``), a digit run of fewer than 7 digits. Numbers said as words ("five five
  five ...") are not recognised: Whisper writes a dictated number as digits.

Logs (``said``): the user's words and the replies are never in a log line unless debug
logging is on for ``desktop_agent`` (``DESKTOP_AGENT_DEBUG=1``); otherwise a line shows only
their length (``<5 words>``). Even at debug level the text is redacted.

Retention (``retention_cutoff``): kept history older than the retention period is purged.

Pure and stdlib-only (reading the logger's level is not I/O).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Final

EMAIL_MARK: Final = "[email]"
CARD_MARK: Final = "[card number]"
PHONE_MARK: Final = "[phone number]"

DAY_S: Final = 86_400.0

_EMAIL: Final = re.compile(r"(?<![\w.+-])[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_CARD: Final = re.compile(r"(?<![\w+])\d(?:[ -]?\d){12,18}(?!\w)")
_PHONE: Final = re.compile(r"(?<![\w+.,:])(?:\+\s?)?\(?\d[\d ().-]{5,22}\d(?![\w]|[.,:]\d)")
_DATE: Final = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}")
_DECIMAL: Final = re.compile(r"\d+\.\d+")
_DEBUG_LOGGER: Final = "desktop_agent"


def luhn_ok(digits: str) -> bool:
    """True when ``digits`` (0-9 only) pass the Luhn checksum that card numbers carry."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return bool(digits) and total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group())
    return CARD_MARK if luhn_ok(digits) else match.group()


def _phone(match: re.Match[str]) -> str:
    text = match.group()
    digits = re.sub(r"\D", "", text)
    if not 7 <= len(digits) <= 15:
        return text
    bare = text.strip("+ ()")
    if _DATE.fullmatch(bare) or _DECIMAL.fullmatch(bare):
        return text
    if text.count("(") != text.count(")"):
        return text
    return PHONE_MARK


def redact(text: str) -> str:
    """``text`` with e-mail addresses, card-like numbers and phone numbers replaced by marks.

    Args:
        text: Anything about to be written (a transcript, a reply, a tool's arguments).

    Returns:
        The same text with ``[email]``, ``[card number]``, ``[phone number]`` in their place;
        everything else (times, dates, amounts, short numbers) untouched.
    """
    if not any(ch.isdigit() or ch == "@" for ch in text):
        return text
    text = _EMAIL.sub(EMAIL_MARK, text)
    text = _CARD.sub(_card, text)
    return _PHONE.sub(_phone, text)


def debug_logging() -> bool:
    """True when debug logging is on for desktop_agent (user text may then be logged)."""
    return logging.getLogger(_DEBUG_LOGGER).isEnabledFor(logging.DEBUG)


@dataclass(frozen=True, slots=True)
class said:  # noqa: N801 - reads as a verb in log calls: _LOGGER.info("heard %s", said(text))
    """User text (or a reply) in a log line: its size unless debug logging is on.

    Formatting is lazy: ``str()`` runs only when the line is emitted, so a log call that is
    filtered out costs nothing.
    """

    text: str

    def __str__(self) -> str:
        """``'<N words>'``, or the redacted text (quoted) at debug level."""
        if debug_logging():
            return repr(redact(self.text))
        n = len(self.text.split())
        return f"<{n} word{'' if n == 1 else 's'}>"


def retention_cutoff(now_s: float, days: int) -> float:
    """The epoch second before which kept history is purged (``days`` 0: everything)."""
    return now_s - max(0, days) * DAY_S
