"""How a ``RunTool`` command is answered: the one copy both executors use.

The app's tool worker and the headless executor hand every ``RunTool`` to ``respond``:
reads run through the registry, and the three steps of the write path go to a
``WriteDesk`` (validate and read back, revise, execute once by idempotency key). A failure
is an answer too (``is_error``; the message goes back to the model), never an exception.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Protocol

from desktop_agent.core.errors import AgentError, NotFoundAnswer
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.commands import RunTool
from desktop_agent.core.turns.states import ToolMode

_LOGGER = logging.getLogger(__name__)


class WriteDesk(Protocol):
    """Where writes are validated and executed (a store behind it)."""

    def prepare(self, call: ToolCall) -> PreparedAction:
        """Validate and normalise a write call and build its read-back (raises AgentError)."""
        ...

    def revise(self, action: PreparedAction, text: str) -> PreparedAction:
        """Apply the user's change ("make it 6 pm") to ``action`` (raises AgentError)."""
        ...

    def execute(self, action: PreparedAction, key: str) -> str:
        """Run ``action`` at most once for ``key``; the sentence of what happened."""
        ...


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """What a tool job reports back to the machine."""

    content: str
    is_error: bool = False
    action: PreparedAction | None = None
    final: bool = False
    """The content is the user's answer as it is (``NotFoundAnswer``): spoken, the model is
    not asked."""


NO_DESK = "Sorry, I can't change anything right now: my notes and timers are not available."


def respond(tools: ToolRegistry, desk: WriteDesk | None, command: RunTool) -> ToolAnswer:
    """Answer ``command`` (any mode). Runs on: the tool thread.

    Args:
        tools: The registry that runs read tools.
        desk: The write path's desk (None: writes are unavailable, said so).
        command: The machine's command.
    """
    mode = command.mode
    if mode is ToolMode.RUN:
        content, is_error = tools.answer(command.call)
        return ToolAnswer(content, is_error)
    if desk is None:
        return ToolAnswer(NO_DESK, True)
    try:
        if mode is ToolMode.PREPARE:
            return ToolAnswer("", action=desk.prepare(command.call))
        if command.action is None:
            return ToolAnswer("Sorry, there was no action to act on.", True)
        if mode is ToolMode.REVISE:
            return ToolAnswer("", action=desk.revise(command.action, command.text))
        return ToolAnswer(desk.execute(command.action, command.key))
    except AgentError as exc:
        if mode is ToolMode.EXECUTE:
            return ToolAnswer(f"Sorry, that did not work: {exc.message}", True)
        return ToolAnswer(exc.message, True, final=isinstance(exc, NotFoundAnswer))
    except Exception as exc:  # a bug in a tool: still an answer, and logged
        _LOGGER.exception("turn=%d tool %s (%s) failed", command.turn_id, command.call.name,
                          mode.value)
        return ToolAnswer(f"Sorry, the {command.call.name.replace('_', ' ')} tool failed "
                          f"({exc.__class__.__name__}).", True)
