"""The conversation shows verdict-gated speech (the opening, verdicts, repairs); Settings."""

from __future__ import annotations

from typing import Any

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.reports import PublishReflection
from desktop_agent.gui.conversation import MAX_REFLECTION_LINES, ConversationView
from desktop_agent.gui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.gui


def step(kind: str, **kw: Any) -> PublishReflection:
    return PublishReflection(turn_id=TurnId(1), kind=kind, round=kw.pop("round", 1), **kw)


def test_each_step_is_shown_under_its_reply(qtbot: Any) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.set_user_final(1, "how many r's in strawberry")
    view.add_reflection(step("reflecting", text="There are 2 r's in strawberry."))
    assert "checking\u2026" in view.toPlainText()
    view.add_reflection(step("verdict", verdict="repair", checker="letters",
                             guidance="2 is wrong: the letter r appears 3 times."))
    view.add_reflection(step("continuation", text="No, that's not right. It is 3.",
                             confessed=True))
    text = view.toPlainText()
    assert "opening: \u201cThere are 2 r's in strawberry.\u201d" in text
    assert "check 1 (letters): repair \u2014 2 is wrong: the letter r appears 3 times." in text
    assert "repair, error was heard: \u201cNo, that's not right. It is 3.\u201d" in text
    assert "checking\u2026" not in text
    view.add_reflection(step("reflecting", round=2, text="..."))
    view.add_reflection(step("verdict", round=2, verdict="good", checker="letters"))
    assert "check 2 (letters): good" in view.toPlainText()
    for _ in range(MAX_REFLECTION_LINES + 5):
        view.add_reflection(step("verdict", verdict="good", checker="x"))
    assert len(view.turn(1).reflections) == MAX_REFLECTION_LINES  # type: ignore[union-attr]


def test_the_dialog_offers_the_three_modes(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    combo: Any = dialog.editor("interaction.reflection")
    assert [combo.itemText(i) for i in range(combo.count())] == [
        "Only checkable questions", "Every answer", "Off"]
    assert dialog.value("interaction.reflection") == "checkable"
    dialog.set_value("interaction.reflection", "off")
    assert dialog.value("interaction.reflection") == "off"
