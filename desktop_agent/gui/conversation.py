"""The conversation as the user experienced it: live partials, finals, and what was heard."""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Final

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.turns.reports import PublishReflection
from desktop_agent.gui.theme import NORMAL, Colors

CUT_MARKER: Final = " \u27c2 "
"""Drawn where a reply was cut off: heard text, marker, unheard text struck through."""
MAX_TURNS: Final = 100
MAX_REFLECTION_LINES: Final = 12
MAX_TOOL_CHIPS: Final = 8
TOOL_CHIP: Final = "used {name}"
"""The chip's words: what a screen reader reads, and what the eye sees framed."""


@dataclass(slots=True)
class TurnEntry:
    """What the view knows about one turn."""

    turn_id: int
    user_partial: str = ""
    user_final: str | None = None
    assistant_text: str = ""
    heard: HeardReport | None = None
    reflections: list[PublishReflection] = field(default_factory=list)
    """Verdict-gated speech of the reply: the opening, each verdict, each continuation."""
    tools_used: list[str] = field(default_factory=list)
    """Tools that ran at once for this reply (no read-back), in order: "used NAME" chips."""

    @property
    def user_text(self) -> str:
        """The final transcript, or the live partial while there is none."""
        return self.user_final if self.user_final is not None else self.user_partial


class ConversationView(QTextBrowser):
    """User and assistant turns, re-rendered as HTML whenever one changes.

    An interrupted reply shows the heard part normally, then ``CUT_MARKER``, then the
    unheard part grey and struck through. Gating of stale turns is the caller's job
    (``MainWindow`` uses a ``TurnGate``); this view also refuses to let streaming text
    overwrite a turn whose HeardReport already arrived (that report is the truth).

    Runs on: GUI thread.
    """

    sig_content_changed = Signal(int)
    """The entry of this turn id changed and was redrawn."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setTabChangesFocus(True)
        self.setAccessibleName("Conversation")
        self.setAccessibleDescription(
            "Your turns and the assistant's replies. Words the assistant did not get to say "
            "before you interrupted are marked as not heard."
        )
        self._turns: dict[int, TurnEntry] = {}
        self._colors: Colors = NORMAL
        self._render()

    # -- updates --------------------------------------------------------------------------
    def set_partial(self, turn_id: int, text: str) -> None:
        """Show the live transcript of the user's speech in ``turn_id``."""
        entry = self._entry(turn_id)
        if entry.user_final is not None:
            return  # the final transcript is already in; a late partial must not replace it
        entry.user_partial = text
        self._changed(turn_id)

    def set_user_final(self, turn_id: int, text: str) -> None:
        """Replace the live partial of ``turn_id`` with the final transcript."""
        entry = self._entry(turn_id)
        entry.user_final = text
        entry.user_partial = ""
        self._changed(turn_id)

    def set_assistant_text(self, turn_id: int, text: str) -> None:
        """Show the assistant's reply in ``turn_id`` as far as it has got."""
        entry = self._entry(turn_id)
        if entry.heard is not None:
            return
        entry.assistant_text = text
        self._changed(turn_id)

    def set_heard(self, report: HeardReport) -> None:
        """Record what was actually heard of a reply (final for that turn)."""
        entry = self._entry(int(report.turn_id))
        entry.heard = report
        entry.assistant_text = report.full_text
        self._changed(int(report.turn_id))

    def add_reflection(self, change: PublishReflection) -> None:
        """Show a step of verdict-gated speech under the reply of ``change.turn_id``.

        The opening (the first 'reflecting'), each verdict with its guidance, and each
        continuation (a repair that confessed is marked); 'checking…' while a verdict is
        awaited. Connect ``AgentViewModel.sig_reflection_changed`` here (through the gate).
        """
        entry = self._entry(int(change.turn_id))
        entry.reflections.append(change)
        del entry.reflections[:-MAX_REFLECTION_LINES]
        self._changed(int(change.turn_id))

    def add_tool_used(self, turn_id: int, name: str) -> None:
        """Show "used NAME" under the reply of ``turn_id``: a tool ran without asking.

        Connect ``AgentViewModel.sig_tool_used`` here (through the gate). The chip is text
        ("used git__git_status"), so a screen reader reads it with the reply.
        """
        entry = self._entry(turn_id)
        entry.tools_used.append(name)
        del entry.tools_used[:-MAX_TOOL_CHIPS]
        self._changed(turn_id)

    def set_colors(self, colors: Colors) -> None:
        """Redraw with ``colors``."""
        self._colors = colors
        self._render()

    def turn(self, turn_id: int) -> TurnEntry | None:
        """The entry of ``turn_id`` (None if the view never saw it)."""
        return self._turns.get(turn_id)

    # -- rendering ------------------------------------------------------------------------
    def _entry(self, turn_id: int) -> TurnEntry:
        entry = self._turns.get(turn_id)
        if entry is None:
            entry = self._turns[turn_id] = TurnEntry(turn_id)
            while len(self._turns) > MAX_TURNS:
                del self._turns[min(self._turns)]
        return entry

    def _changed(self, turn_id: int) -> None:
        self._render()
        self.sig_content_changed.emit(turn_id)

    def _render(self) -> None:
        bar = self.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        c = self._colors
        parts = [f"<body style='color:{c.text}'>"]
        if not self._turns:
            parts.append(
                f"<p style='color:{c.muted}'>Hold the talk button (or the push-to-talk key) "
                "and speak. Your words and the assistant's replies appear here.</p>"
            )
        for turn_id in sorted(self._turns):
            parts.append(self._turn_html(self._turns[turn_id]))
        parts.append("</body>")
        self.setHtml("".join(parts))
        if at_bottom:
            bar.setValue(bar.maximum())

    def _turn_html(self, e: TurnEntry) -> str:
        c = self._colors
        esc = html.escape
        out = []
        head = f"<span style='color:{c.muted}; font-size:small'>turn {e.turn_id}</span>"
        if e.user_final is not None:
            out.append(f"<p><b>You</b> {head}<br>{esc(e.user_final)}</p>")
        elif e.user_partial:
            out.append(
                f"<p><b>You</b> {head}<br><i style='color:{c.muted}'>"
                f"{esc(e.user_partial)}\u2026</i></p>"
            )
        report = e.heard
        if report is not None and report.interrupted:
            unheard = report.unheard_text.strip()
            body = esc(report.heard_text.rstrip()) or f"<i style='color:{c.muted}'>(nothing)</i>"
            body += f"<b style='color:{c.bad}'>{esc(CUT_MARKER)}</b>"
            if unheard:
                body += f"<s style='color:{c.unheard}'>{esc(unheard)}</s>"
            out.append(f"<p><b>Assistant</b> <span style='color:{c.bad}'>(interrupted at "
                       f"{report.cut_at_s:.1f} s)</span><br>{body}</p>")
        elif e.assistant_text:
            out.append(f"<p><b>Assistant</b><br>{esc(e.assistant_text)}</p>")
        if e.tools_used:
            out.append(self._chips_html(e.tools_used))
        if e.reflections:
            out.append(self._reflection_html(e.reflections))
        return "".join(out)

    def _chips_html(self, names: list[str]) -> str:
        c = self._colors
        chip = (f"<span style='color:{c.accent_text}; background-color:{c.accent}; "
                "font-size:small'>&nbsp;{text}&nbsp;</span>")
        return "<p>" + " ".join(chip.format(text=html.escape(TOOL_CHIP.format(name=n)))
                                for n in names) + "</p>"

    def _reflection_html(self, steps: list[PublishReflection]) -> str:
        c, esc = self._colors, html.escape
        lines = []
        for step in steps:
            if step.kind == "reflecting" and step.round == 1:
                lines.append(f"opening: \u201c{esc(step.text)}\u201d")
            elif step.kind == "verdict":
                why = f" \u2014 {esc(step.guidance)}" if step.guidance else ""
                lines.append(f"check {step.round} ({esc(step.checker)}): "
                             f"<b>{esc(step.verdict)}</b>{why}")
            elif step.kind == "continuation":
                label = "repair, error was heard" if step.confessed else "continued"
                lines.append(f"{label}: \u201c{esc(step.text)}\u201d")
        if steps[-1].kind == "reflecting":
            lines.append("checking\u2026")
        return (f"<p style='color:{c.muted}; font-size:small'>" + "<br>".join(lines) + "</p>")
