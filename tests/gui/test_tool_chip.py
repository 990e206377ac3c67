"""The conversation shows "used NAME" under a reply when a tool ran at once."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.gui


def test_a_tool_that_ran_at_once_shows_a_used_chip(window: Any, vm: Any) -> None:
    vm.sig_user_final.emit(1, "what's the git status")
    vm.sig_tool_used.emit(1, "git__git_status")
    vm.sig_assistant_text.emit(1, "On branch master.")
    text = window.conversation.toPlainText()
    assert "used git__git_status" in text
    assert text.index("On branch master.") < text.index("used git__git_status")
    vm.sig_tool_used.emit(0, "stale__tool")  # an older turn's: the gate drops it
    assert "stale__tool" not in window.conversation.toPlainText()
