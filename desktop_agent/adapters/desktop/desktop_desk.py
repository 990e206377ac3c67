"""The write path's desk for the desktop's writes: open an application, an address, a place,
type words into the focused window.

Implements ``core.turns.tool_desk.WriteDesk`` in front of another desk (the store's): the
desktop's writes (``open_app``, ``open_location``, ``type_text``) are prepared and executed
here, every
other write goes on to ``inner``. Preparing finds what the words name (the menu entry, the
folder), so the read-back names the real thing ("Open Abacus Pro?") and what executes after
"yes" is exactly that: the entry's command, the address, the path, the text, as read back.
``type_text`` notes which window had the focus when it was asked, and types only if that
window still has it (a click on the card's Confirm button would move the focus: say "yes"),
never into the assistant's own window. When the
words name nothing there, the answer says so as it is (``NotFoundAnswer``: spoken, the model
is not asked again). Executing
goes through the action log's ``execute_once`` when there is one (the store's: once per
idempotency key, logged with the notes and timers), else a small in-memory once-per-key.

Runs on: the tool thread.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

from desktop_agent.adapters.desktop.launcher import Launcher
from desktop_agent.adapters.desktop.x11_typing import DesktopTypist
from desktop_agent.core.errors import AgentError, NotFoundAnswer
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.confirm import prepare
from desktop_agent.core.tools.launch import exec_argv, folder_words
from desktop_agent.core.tools.type_text import FOCUS_IS_MINE, FOCUS_MOVED, OWN_WINDOW, Typist
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.tool_desk import WriteDesk

DESKTOP_WRITES: Final = frozenset({"open_app", "open_location", "type_text"})
"""The writes this desk runs itself."""
KEPT_KEYS: Final = 64
"""Idempotency keys remembered without an action log (the newest)."""


class Executed(Protocol):
    """What an action log returns for one run (the store's ``Executed`` fits)."""

    @property
    def result(self) -> str:
        """The sentence of what happened."""
        ...


class ActionLog(Protocol):
    """Runs an action once per key and logs it (the store fits)."""

    def execute_once(self, key: str, tool: str, args: Mapping[str, Any],
                     action: Callable[[Any], str], now: float | None = None) -> Executed:
        """Run ``action`` once per ``key``; a repeat returns the logged result."""
        ...


class DesktopDesk:
    """``WriteDesk``: the desktop's writes here, every other write to ``inner``.

    Runs on: the tool thread.
    """

    def __init__(self, inner: WriteDesk | None, *, log: ActionLog | None = None,
                 launcher: Launcher | None = None, typist: Typist | None = None) -> None:
        """Wire the desk.

        Args:
            inner: The desk of every other write (None: they are unavailable).
            log: The action log (the store) that runs each action once per key.
            launcher: The menu and folders (default: the user's, from the environment).
            typist: Types into the focused window (default: XTest, or wtype on Wayland).
        """
        self._inner = inner
        self._log = log
        self._launcher = launcher or Launcher()
        self._typist = typist if typist is not None else DesktopTypist()
        self._done: OrderedDict[str, str] = OrderedDict()

    def _other(self) -> WriteDesk:
        if self._inner is None:
            raise AgentError("no_desk", "My notes and timers are not available right now.")
        return self._inner

    def prepare(self, call: ToolCall) -> PreparedAction:
        """Find what the call names and read it back; other writes go to ``inner``."""
        if call.name not in DESKTOP_WRITES:
            return self._other().prepare(call)
        action = prepare(call, dt.datetime.now().astimezone())  # validated, words kept
        if action.tool == "type_text":
            return self._prepare_typing(action)
        if action.tool == "open_app":
            said = str(action.args["app"])
            entry = self._launcher.find_app(said)
            if entry is None:
                raise NotFoundAnswer("no_such_app", f"There is no application called {said} "
                                     "in the menu, so I opened nothing.")
            argv = exec_argv(entry.exec_line, entry)
            if entry.terminal:
                argv = self._launcher.in_terminal(argv, entry.name)
            return PreparedAction("open_app", {"app": said, "name": entry.name,
                                               "desktop_id": entry.desktop_id, "argv": argv},
                                  f"Open {entry.name}?")
        if "url" in action.args:
            return action  # a web address: its read-back names it already
        said = str(action.args["target"])
        place = self._launcher.find_place(said)
        if place is None:
            name = " ".join(folder_words(said)) or said
            raise NotFoundAnswer("no_such_place", f"I can't find anything called {name} in "
                                 "your folders, so I opened nothing.")
        kind = "the folder" if place.is_dir() else "the file"
        return PreparedAction("open_location", {"target": said, "path": str(place)},
                              f"Open {kind} {place.name} in {place.parent.name or '/'}?")

    def _prepare_typing(self, action: PreparedAction) -> PreparedAction:
        """The read-back of the exact text, with the window that has the focus now."""
        try:
            window = self._typist.focused()
        except AgentError as exc:  # no display: said as it is, nothing to fix by asking again
            raise NotFoundAnswer(exc.code, exc.message) from None
        if window == OWN_WINDOW:
            raise NotFoundAnswer("typing_own_window", FOCUS_IS_MINE)
        return PreparedAction("type_text", {**action.args, "window": window}, action.read_back)

    def revise(self, action: PreparedAction, text: str) -> PreparedAction:
        """A spoken change: the desktop's writes take none (a new request replaces them)."""
        if action.tool in DESKTOP_WRITES:
            raise AgentError("not_a_change", "That is not a change to the request.")
        return self._other().revise(action, text)

    def execute(self, action: PreparedAction, key: str) -> str:
        """Open what was read back, at most once for ``key``; the sentence of what happened."""
        if action.tool not in DESKTOP_WRITES:
            return self._other().execute(action, key)
        if self._log is not None:
            return self._log.execute_once(key, action.tool, action.args,
                                          lambda _store: self._run(action)).result
        if key not in self._done:
            self._done[key] = self._run(action)
            while len(self._done) > KEPT_KEYS:
                self._done.popitem(last=False)
        return self._done[key]

    def _run(self, action: PreparedAction) -> str:
        args = action.args
        if action.tool == "type_text":
            if self._typist.focused() != str(args.get("window", "")):
                return FOCUS_MOVED
            return self._typist.type(str(args["text"])) or "Typed."
        if action.tool == "open_app":
            self._launcher.launch([str(a) for a in args["argv"]])
            return f"Opening {args['name']}."
        target = str(args.get("url") or args["path"])
        self._launcher.open_with_default(target)
        return f"Opening {target}."
