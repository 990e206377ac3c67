"""``desktop-agent replay SCRIPT.jsonl``: a scripted conversation through the real turn machine.

For tests, demos and accessibility testers. Each line of the script is one step:

* ``{"say": "text"}``: a user turn given as text (it enters the machine where a transcript
  would);
* ``{"wav": "path"}``: a user turn as audio, through Whisper;
* ``{"advance_s": N}``: move the app's clocks forward N seconds (confirmation expiry,
  timers and reminders coming due);
* ``{"press": "confirm"}`` / ``{"press": "cancel"}``: the confirmation card's buttons.

One JSON object is printed per step, then ``{"summary": {...}}``. Without ``data_dir`` a
fresh temporary store is used, so a replay never touches the user's notes.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from desktop_agent.core.errors import AgentError
from desktop_agent.core.mcp.config import McpConfig
from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.states import ToolMode

_KINDS = ("say", "wav", "advance_s", "press")
_FIX = ('Each line is one JSON object with one of: {"say": "text"}, {"wav": "path"}, '
        '{"advance_s": 5}, {"press": "confirm"} or {"press": "cancel"}.')


@dataclass(frozen=True)
class Step:
    """One parsed line of a script."""

    line: int
    kind: str
    value: Any


def parse_script(text: str, base: Path) -> list[Step]:
    """Parse and check every line before anything loads (a bad script fails at once).

    Raises:
        AgentError: 'replay_bad_step' naming the line and what is wrong.
    """
    steps: list[Step] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise AgentError("replay_bad_step", f"Line {number} is not JSON ({exc.msg}).",
                             _FIX) from exc
        keys = [k for k in _KINDS if isinstance(obj, dict) and k in obj]
        if not isinstance(obj, dict) or len(keys) != 1 or len(obj) != 1:
            raise AgentError("replay_bad_step",
                             f"Line {number} must have exactly one step key.", _FIX)
        kind, value = keys[0], obj[keys[0]]
        if kind == "say" and not (isinstance(value, str) and value.strip()):
            raise AgentError("replay_bad_step", f"Line {number}: 'say' needs some text.", _FIX)
        if kind == "wav":
            path = (base / str(value)) if not Path(str(value)).is_absolute() else Path(value)
            if not path.is_file():
                raise AgentError("replay_bad_step", f"Line {number}: no audio file {path}.",
                                 "Give a WAV path relative to the script or absolute.")
            value = path
        if kind == "advance_s" and (isinstance(value, bool) or not isinstance(value, int | float)
                                    or not 0 <= value <= 366 * 86400):
            raise AgentError("replay_bad_step",
                             f"Line {number}: 'advance_s' needs seconds from 0 to a year.", _FIX)
        if kind == "press" and value not in ("confirm", "cancel"):
            raise AgentError("replay_bad_step",
                             f"Line {number}: 'press' is 'confirm' or 'cancel'.", _FIX)
        steps.append(Step(number, kind, value))
    return steps


class Clocks:
    """The app's monotonic clock and wall clock, both movable forward by ``advance``."""

    def __init__(self) -> None:
        """Start at the real time with no offset."""
        self.offset_s = 0.0

    def advance(self, seconds: float) -> None:
        """Move both clocks forward."""
        self.offset_s += seconds

    def mono(self) -> float:
        """Monotonic seconds (the turn machine's clock)."""
        return time.monotonic() + self.offset_s

    def wall(self) -> float:
        """UTC epoch seconds."""
        return time.time() + self.offset_s

    def now(self) -> dt.datetime:
        """The local time, timezone-aware."""
        return dt.datetime.now().astimezone() + dt.timedelta(seconds=self.offset_s)


@contextmanager
def _data_dir(path: Path | None) -> Iterator[Path]:
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="desktop-agent-replay-") as tmp:
        yield Path(tmp)


def run_replay(script: Path, *, data_dir: Path | None = None, settings: Settings | None = None,
               out: TextIO | None = None, max_tokens: int = 200,
               mcp: McpConfig | None = None) -> list[dict[str, Any]]:
    """Run ``script`` on the real engines; print (to ``out``) and return one object per step.

    ``mcp``: your own tools' servers to start and offer (``replay`` passes the config
    folder's; None: none).

    Raises:
        AgentError: a bad script ('replay_bad_step', before any model loads), a model that
            cannot load (with its fix).
    """
    from desktop_agent.adapters.audio.audio_files import read_audio
    from desktop_agent.adapters.desktop.desktop_desk import DesktopDesk
    from desktop_agent.adapters.desktop.desktop_tools import LastReply, add_desktop_tools
    from desktop_agent.adapters.store.store_sqlite import FILE_NAME
    from desktop_agent.adapters.store.tools_builtin import builtin_tools
    from desktop_agent.adapters.store.write_desk import StoreDesk
    from desktop_agent.compose.engines import load_engines
    from desktop_agent.compose.kept_history import keep_history
    from desktop_agent.compose.ledger import StoreLedger, open_store
    from desktop_agent.compose.mcp import wire_mcp
    from desktop_agent.runtime.alarm_clock import alarm_line
    from desktop_agent.runtime.headless import HeadlessExecutor

    try:
        text = script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise AgentError("replay_unreadable", f"Cannot read the script {script}: {exc}.",
                         "Give a UTF-8 JSONL file.") from exc
    steps = parse_script(text, script.parent)
    clocks = Clocks()
    rows: list[dict[str, Any]] = []
    emit = _printer(out)
    with _data_dir(data_dir) as folder:
        store, note = open_store(folder / FILE_NAME)  # a damaged file is kept aside
        if note:
            print(f"warning: {note}", file=sys.stderr)
        if store.error is not None:  # locked or too new: nothing to replay against
            raise store.error
        last_reply = LastReply()
        tools = add_desktop_tools(builtin_tools(store, clocks.now),
                                  last_answer=last_reply)  # as the app's
        desk, own = wire_mcp(tools, DesktopDesk(StoreDesk(store, clocks.now), log=store),
                             store, mcp)
        roles = ("asr", "llm", "tts") if any(s.kind == "wav" for s in steps) else ("llm", "tts")
        engines = load_engines(settings or Settings(), roles, tools=tools)
        assert engines.llm is not None and engines.tts is not None
        ledger = StoreLedger(store, clocks.wall)
        executed_all: list[dict[str, Any]] = []
        with HeadlessExecutor(engines.llm, engines.tts, tools, engines.asr,
                              max_tokens=max_tokens, clock=clocks.mono,
                              desk=desk, wall=clocks.now,
                              session=uuid.uuid4().hex[:12]) as executor:
            last_reply.bind(executor.machine.history)
            keep_history(store, settings or Settings(), executor.machine.history,
                         wall=clocks.wall)
            for index, step in enumerate(steps, 1):
                row = _step(executor, step, clocks, ledger, read_audio, alarm_line)
                row = {"step": index, **row}
                executed_all += row["executed"]
                rows.append(row)
                emit(row)
        if own is not None:
            own.hub.close()
        store.close()
    summary = {"summary": {"steps": len(steps), "executed": executed_all}}
    emit(summary)
    rows.append(summary)
    return rows


def _printer(out: TextIO | None) -> Callable[[dict[str, Any]], None]:
    def emit(obj: dict[str, Any]) -> None:
        if out is not None:
            out.write(json.dumps(obj) + "\n")
            out.flush()
    return emit


def _step(executor: Any, step: Step, clocks: Clocks, ledger: Any, read_audio: Any,
          alarm_line: Callable[[Any], str]) -> dict[str, Any]:
    alarms: list[str] = []
    turn = None
    if step.kind == "advance_s":
        clocks.advance(float(step.value))
        alarms = [alarm_line(a) for a in ledger.take_due(clocks.wall())]
    elif step.kind == "say":
        turn = executor.ask_text(step.value)
    elif step.kind == "wav":
        turn = executor.ask_audio(read_audio(step.value))
    else:
        turn = executor.press(step.value == "confirm")
    machine = executor.machine
    pending = machine.pending_action(clocks.mono())
    row: dict[str, Any] = {
        "transcript": turn.transcript if turn else "",
        "reply": (turn.reply if turn else "") or " ".join(alarms),
        "state": machine.state.value,
        "tool_calls": [] if turn is None else [
            {"name": c.call.name, "args": dict(c.call.arguments),
             "writes": c.mode is not ToolMode.RUN}
            for c in turn.tool_commands if c.mode in (ToolMode.RUN, ToolMode.PREPARE)],
        "pending": None if pending is None else {
            "tool": pending.action.tool, "args": dict(pending.action.args),
            "read_back": pending.action.read_back,
            "expires_in_s": round(pending.expires_in_s(clocks.mono()), 1)},
        "executed": [] if turn is None else [
            {"tool": a.action.tool, "args": dict(a.action.args), "idempotency_key": a.key,
             "result": a.result} for a in turn.actions if a.kind == "executed"],
    }
    if alarms:
        row["alarms"] = alarms
    if turn is not None and turn.error is not None:
        row["error"] = {"code": turn.error.code, "message": turn.error.message,
                        "fix": turn.error.fix}
    return row
