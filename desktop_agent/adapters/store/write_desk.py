"""The write path's desk on the SQLite store: validate and read back, revise, execute once.

Implements ``core.turns.tool_desk.WriteDesk``. Runs on: the tool thread (the store serialises).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Final

from desktop_agent.adapters.store.store_sqlite import Store
from desktop_agent.adapters.store.tools_builtin import execute_prepared, prepare_call
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.write_actions import PreparedAction

Now = Callable[[], dt.datetime]

_CHANGE_WORDS: Final = re.compile(
    r"^\s*(?:(?:no|actually|wait|sorry|oh|okay|ok|yes|yeah|but|then)\b[,.]?\s*)*"
    r"(?:(?:please\s+)?(?:make|change|set|move)\s+(?:it|that|this|the \w+)\s+"
    r"(?:to|for|at|into)?\s*|instead\s*,?\s*|rather\s*,?\s*)?", re.IGNORECASE)
_TRAILING: Final = re.compile(r"\s*(?:,?\s*(?:instead|please|then|rather))+\s*[.!?]*\s*$",
                              re.IGNORECASE)


def change_words(text: str) -> str:
    """The new value in a spoken change: "No, make it 6 pm instead." -> "6 pm"."""
    words = _CHANGE_WORDS.sub("", text, count=1)
    words = _TRAILING.sub("", words)
    return words.strip(" ,.!?")


class StoreDesk:
    """``WriteDesk`` over a ``Store``; ``now`` is the local wall clock (aware)."""

    def __init__(self, store: Store, now: Now | None = None) -> None:
        """Validate, revise and execute writes against ``store``."""
        self.store = store
        self._now = now or (lambda: dt.datetime.now().astimezone())

    def prepare(self, call: ToolCall) -> PreparedAction:
        """Validate and normalise ``call``; the read-back comes from the result."""
        return prepare_call(self.store, call, self._now())

    def revise(self, action: PreparedAction, text: str) -> PreparedAction:
        """Replace the changed argument of ``action`` (its catalog entry's ``revised``) with
        the words of ``text``; the other arguments are kept as the model gave them (the
        normalised extras are derived again)."""
        entry = BUILTIN.get(action.tool)
        words = change_words(text)
        if entry is None or not entry.revised or not words:
            raise AgentError("not_a_change", "That is not a change to the request.")
        said = dict(entry.parameters).get("properties") or {}
        raw = {k: action.args[k] for k in said if k in action.args}
        raw[entry.revised] = words
        return prepare_call(self.store, ToolCall(action.tool, raw), self._now())

    def execute(self, action: PreparedAction, key: str) -> str:
        """Run ``action`` at most once for ``key`` (a repeat replays the logged result)."""
        return execute_prepared(self.store, action, key, self._now()).result
