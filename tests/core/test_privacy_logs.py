"""No log line above debug level carries the user's words or a reply (core/privacy.said).

A static check over every ``_LOGGER`` call in the package: an argument whose expression names
text a person said or heard (a transcript, a reply, a message's content, a tool's arguments, a
command or event object that holds them) must go through ``said(...)``. Debug lines may show
them (``said`` redacts them there too).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "desktop_agent"
LEVELS = {"info", "warning", "error", "exception", "critical"}
WORDY = re.compile(r"(^|[._])(text|transcript|content|reply|heard|said|utterance|arguments|"
                   r"args|label|query|prompt|messages|command|event)($|[._\[])")
SAFE_ENDINGS = ("__name__", ".name", ".code", ".turn_id", ".job", ".id", ".value")
"""Identifiers and codes, never words."""
DEVICE_LABELS = {"desktop_agent/adapters/audio/audio_io.py": {"self.label"},
                 "desktop_agent/adapters/audio/device_audio.py": {"label"}}
"""'label' there is an audio device's name, not an alarm's."""


def _offending(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in LEVELS and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "_LOGGER"):
            continue
        for arg in node.args[1:]:
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) \
                    and arg.func.id == "said":
                continue
            source = ast.unparse(arg)
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) \
                    and arg.func.id in ("type", "len"):
                continue
            if WORDY.search(source) and not source.endswith(SAFE_ENDINGS):
                found.append((node.lineno, source))
    return found


def test_no_log_call_passes_user_words_unless_through_said() -> None:
    bad = []
    for path in sorted(PKG.rglob("*.py")):
        for line, source in _offending(ast.parse(path.read_text(encoding="utf-8"))):
            rel = path.relative_to(PKG.parent).as_posix()
            if source not in DEVICE_LABELS.get(rel, set()):
                bad.append(f"{rel}:{line}: {source}")
    assert not bad, "wrap these in core.privacy.said(...):\n" + "\n".join(bad)


def test_the_check_finds_a_transcript_in_a_log_line() -> None:
    tree = ast.parse('_LOGGER.info("heard %r", event.text)\n'
                     '_LOGGER.info("heard %s", said(event.text))\n'
                     '_LOGGER.debug("heard %r", event.text)\n'
                     '_LOGGER.warning("cmd %s", command)\n')
    assert _offending(tree) == [(1, "event.text"), (4, "command")]
