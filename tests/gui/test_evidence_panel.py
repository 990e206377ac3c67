"""The evidence panel: each spoken unit with its sources, heard or not, never stale."""

from __future__ import annotations

import pytest

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.knowledge.records import Quote, SpokenUnit
from desktop_agent.core.turns.reports import PublishUnit
from desktop_agent.gui.evidence_panel import NO_EVIDENCE, EvidencePanel, highlighted

pytestmark = pytest.mark.gui

PASSAGE = "E2 | Low water pressure | Top up to 1.5 bar (only when cold)."


def unit(key: str, generation: int, text: str, file: str = "/docs/manual.pdf") -> SpokenUnit:
    quote = Quote(passage_id=f"m@1#{key}", file=file, title="manual.pdf",
                  quote="Top up to 1.5 bar (only when cold)", page=2)
    return SpokenUnit(key=key, generation=generation, text=text, claim_keys=("c1",),
                      evidence=(quote.passage_id,), quotes=(quote,))


def change(u: SpokenUnit, disposition: str) -> PublishUnit:
    return PublishUnit(turn_id=TurnId(1), unit=u, disposition=disposition, at_s=0.0)


def test_highlighted_bolds_the_supporting_words_and_escapes_the_rest() -> None:
    assert highlighted("a <b> TOP up c", "top up") == "a &lt;b&gt; <b>TOP up</b> c"
    assert highlighted("nothing here", "absent") == "nothing here"


def test_units_show_with_sources_status_and_an_open_button(qtbot) -> None:
    opened: list[str] = []
    panel = EvidencePanel(passage_text=lambda pid: PASSAGE, opener=lambda f: opened.append(f)
                          or True)
    qtbot.addWidget(panel)
    assert panel.empty.text() == NO_EVIDENCE
    u1, u2 = unit("u1", 1, "Top up to one and a half bar, only when cold."), unit("u2", 1, "Then")
    panel.on_unit_changed(change(u1, "ready"))
    panel.on_unit_changed(change(u2, "ready"))
    panel.on_unit_changed(change(u1, "partly_heard"))
    panel.on_unit_changed(change(u2, "unheard"))
    assert list(panel.rows) == ["u1", "u2"]
    assert "partly heard" in panel.rows["u1"].said.text()
    assert "not heard" in panel.rows["u2"].said.text()
    label, button = panel.rows["u1"].sources[0]
    assert "<b>Top up to 1.5 bar (only when cold)</b>" in label.text()
    assert "page 2" in label.text()
    assert label.accessibleName() == "Source: manual.pdf, page 2"
    assert button.accessibleName() == "Open manual.pdf"
    button.click()
    assert opened == ["/docs/manual.pdf"]


def test_a_new_answer_replaces_the_rows_and_a_stale_unit_is_never_shown(qtbot) -> None:
    panel = EvidencePanel()
    qtbot.addWidget(panel)
    panel.on_unit_changed(change(unit("u1", 1, "old answer"), "ready"))
    panel.on_unit_changed(change(unit("u1", 2, "new answer"), "ready"))
    assert panel.generation == 2 and panel.rows["u1"].unit_text == "new answer"
    panel.on_unit_changed(change(unit("u2", 1, "late old unit"), "stale"))
    assert list(panel.rows) == ["u1"]


def test_a_note_source_has_no_open_button_to_press(qtbot) -> None:
    panel = EvidencePanel()
    qtbot.addWidget(panel)
    panel.on_unit_changed(change(unit("u1", 1, "From a note.", file="notes:7"), "ready"))
    assert not panel.rows["u1"].sources[0][1].isEnabled()
