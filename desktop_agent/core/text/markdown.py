"""Cleaning LLM text for the ear: invisible characters, emoji, markdown, code, URLs.

These are the first passes of :func:`desktop_agent.core.text.normalize.normalize_for_speech`.
Each takes and returns plain ``str`` and never raises.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

CODE_PHRASE: Final = "Code shown on screen."
"""What is said instead of a fenced code block. Code read aloud is noise; the GUI shows it."""

_KEEP_SYMBOLS: Final = frozenset("°")
"""'So' (other symbol) characters that later passes turn into words; every other 'So' goes."""

_SPACE_LIKE: Final = frozenset("\t\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008")
_LINE_BREAKS: Final = frozenset("\r\u2028\u2029\u0085\x0b\x0c")


def _keep(ch: str) -> str:
    if ch == "\n":
        return ch
    if ch in _LINE_BREAKS:
        return "\n"
    if ch in _SPACE_LIKE:
        return " "
    cat = unicodedata.category(ch)
    if cat[0] == "C":  # control, format (ZWJ), surrogate, private use, unassigned
        return ""
    if cat[0] == "Z":
        return " "
    if cat == "So" and ch not in _KEEP_SYMBOLS:  # emoji, pictographs, dingbats, U+FFFD
        return ""
    code = ord(ch)
    if 0x1F3FB <= code <= 0x1F3FF:  # emoji skin-tone modifiers (category Sk)
        return ""
    if 0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or code == 0x20E3:
        return ""  # variation selectors and the combining keycap of emoji sequences
    return ch


def strip_invisible(text: str) -> str:
    """Drop control and format characters, emoji and private-use code points.

    Line separators become a newline; tabs and exotic spaces become a plain space.
    """
    text = text.replace("\r\n", "\n").replace("\u2212", "-")  # minus sign -> hyphen-minus
    return "".join(_keep(ch) for ch in text)


_FENCE_OPEN: Final = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_INLINE_FENCE: Final = re.compile(r"```.*?```")


def replace_code_blocks(text: str) -> str:
    """Replace each fenced code block (closed or not) by :data:`CODE_PHRASE`.

    An unclosed fence runs to the end of the text: a streamed chunk may hold
    only the start of a block, and half a program is still not for reading aloud.
    """
    text = _INLINE_FENCE.sub(" " + CODE_PHRASE + " ", text)
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        match = _FENCE_OPEN.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and line.strip() == match.group(1):
                fence = ""
            continue
        if match:
            fence = match.group(1)
            out.append(CODE_PHRASE)
            continue
        out.append(line)
    return "\n".join(out)


_HEADING: Final = re.compile(r"^#{1,6}\s+")
_QUOTE: Final = re.compile(r"^(?:>\s?)+")
_BULLET: Final = re.compile(r"^(?:[-*+\u2022\u25e6\u2023]|[0-9]{1,3}[.)])\s+")
_RULE: Final = re.compile(r"^(?:[-*_]\s*){3,}$")
_TABLE_SEP: Final = re.compile(r"^\|?[\s:|-]+\|?$")
_ENDS_CLAUSE: Final = re.compile(r"[.!?:;,]['\")\]]*$")


def _strip_line(line: str) -> tuple[str, bool]:
    """One markdown line without its block markers, and whether it is a block (item, heading)."""
    line = line.strip()
    if _RULE.match(line):
        return "", False
    line = _QUOTE.sub("", line)
    block = False
    for pattern in (_HEADING, _BULLET):
        stripped = pattern.sub("", line, count=1)
        if stripped != line:
            line, block = stripped, True
    if line.startswith("|") and line.endswith("|") and len(line) > 1:
        if _TABLE_SEP.match(line):
            return "", False
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        line, block = ", ".join(cell for cell in cells if cell), True
    return line, block


def strip_block_markdown(text: str) -> str:
    """Remove headings, bullets, numbering, quotes, rules and tables; join lines.

    Headings, list items and paragraph ends get a full stop when they have no
    punctuation, so the voice pauses between them instead of running them together.
    """
    lines = [_strip_line(line) for line in text.split("\n")]
    last = max((i for i, (line, _) in enumerate(lines) if line), default=-1)
    out: list[str] = []
    for index, (line, block) in enumerate(lines):
        if not line:
            continue
        next_blank = index < last and not lines[index + 1][0]
        if (block or next_blank) and index != last and not _ENDS_CLAUSE.search(line):
            line += "."
        out.append(line)
    return " ".join(out)


_INLINE_RULES: Final = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # image -> alt text
    (re.compile(r"\[([^\]]+)\]\([^)\s]*(?:\s+\"[^\"]*\")?\)"), r"\1"),  # link -> its text
    (re.compile(r"<((?:https?|ftp)://[^>\s]+)>"), r"\1"),  # autolink
    (re.compile(r"`+([^`]*)`+"), r"\1"),  # inline code keeps its text
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), r"\2"),  # bold
    (re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])"), r"\1"),  # italic *x*
    (re.compile(r"(?<![\w_])_(?=\S)(.+?)(?<=\S)_(?![\w_])"), r"\1"),  # italic _x_
    (re.compile(r"~~(.+?)~~"), r"\1"),  # strikethrough
)


def strip_inline_markdown(text: str) -> str:
    """Unwrap emphasis, inline code, links and images, keeping the words."""
    for pattern, replacement in _INLINE_RULES:
        text = pattern.sub(replacement, text)
    return text


_URL: Final = re.compile(r"\b(?:(?:https?|ftp)://|www\.)[^\s<>\"'\])]+", re.IGNORECASE)
_EMAIL: Final = re.compile(r"\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)\b")
_TRAILING_URL_PUNCT: Final = ".,;:!?"


def _say_domain(domain: str) -> str:
    return " dot ".join(part for part in domain.split(".") if part)


def _url_words(match: re.Match[str]) -> str:
    url = match.group(0)
    trail = ""
    while url and url[-1] in _TRAILING_URL_PUNCT:  # sentence punctuation is not the URL's
        trail = url[-1] + trail
        url = url[:-1]
    host = re.sub(r"^(?:(?:https?|ftp)://)?", "", url, flags=re.IGNORECASE)
    host = re.split(r"[/?#:]", host, maxsplit=1)[0]
    host = re.sub(r"^www\.", "", host, flags=re.IGNORECASE)
    spoken = _say_domain(host) if host else "a link"
    return spoken + trail


def _email_words(match: re.Match[str]) -> str:
    user, _, domain = match.group(0).partition("@")
    return f"{_say_domain(user)} at {_say_domain(domain)}"


def replace_urls(text: str) -> str:
    """Say a URL as its domain ("https://www.example.com/a?b" -> "example dot com").

    The domain tells the listener where the link goes; the path is noise. An
    e-mail address is read as "user at example dot com".
    """
    text = _URL.sub(_url_words, text)
    return _EMAIL.sub(_email_words, text)
