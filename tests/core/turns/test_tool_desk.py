"""``respond`` (core.turns.tool_desk): failures are answers; a not-found one is final."""

from __future__ import annotations

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.errors import AgentError, NotFoundAnswer
from desktop_agent.core.ports import ToolCall
from desktop_agent.core.tools.registry import ToolRegistry
from desktop_agent.core.tools.write_actions import PreparedAction
from desktop_agent.core.turns.commands import RunTool
from desktop_agent.core.turns.states import JobId, ToolMode
from desktop_agent.core.turns.tool_desk import ToolAnswer, respond


class FailingDesk:
    """A desk whose every step fails with ``error``."""

    def __init__(self, error: AgentError) -> None:
        self.error = error

    def prepare(self, call: ToolCall) -> PreparedAction:
        raise self.error

    def revise(self, action: PreparedAction, text: str) -> PreparedAction:
        raise self.error

    def execute(self, action: PreparedAction, key: str) -> str:
        raise self.error


def _prepare(error: AgentError) -> ToolAnswer:
    command = RunTool(turn_id=TurnId(1), job=JobId(1), call=ToolCall("open_app", {"app": "x"}),
                      mode=ToolMode.PREPARE)
    return respond(ToolRegistry(), FailingDesk(error), command)


def test_a_not_found_answer_is_final_and_a_bad_argument_is_not() -> None:
    found = _prepare(NotFoundAnswer("no_such_app", "There is no application called x."))
    assert (found.content, found.is_error, found.final) == (
        "There is no application called x.", True, True)
    bad = _prepare(AgentError("bad_arguments", "open_app needs the app's name."))
    assert (bad.content, bad.is_error, bad.final) == ("open_app needs the app's name.", True,
                                                      False)
