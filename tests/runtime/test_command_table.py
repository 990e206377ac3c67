"""One command table for both executors: every command has a port method, both build from it.

A command added to core/turns/commands.py (or reports.py) without a ``CommandPorts`` method and
a table line fails here; one whose method an executor lacks fails mypy (``command_table(ports)``)
and here.
"""

from __future__ import annotations

import inspect
import re
import typing
from typing import Any

import pytest

from desktop_agent.adapters.store.tools_builtin import default_tools
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import reports
from desktop_agent.runtime import command_table as table_module
from desktop_agent.runtime.command_table import CommandPorts, HandlerTable, command_table
from desktop_agent.runtime.controller_commands import ControllerCommands
from desktop_agent.runtime.headless import HeadlessExecutor
from tests.fakes.llm import FakeLlm, say
from tests.fakes.tts import FakeTts

COMMANDS = frozenset(typing.get_args(cmd.Command))
"""Every command type the machine emits."""


def _method(kind: type[Any]) -> str:
    """The port method of a command type: its name in snake case (StartLlm -> start_llm)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()


def _port_methods() -> set[str]:
    return {name for name, _ in inspect.getmembers(CommandPorts, inspect.isfunction)
            if not name.startswith("_")}


class _Recorder:
    """Ports whose every method records its own name (stands for any executor)."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return lambda c: self.ran.append(name)


def test_the_command_modules_define_no_command_outside_the_union() -> None:
    defined = {obj for module in (cmd, reports)
               for _, obj in inspect.getmembers(module, inspect.isclass)
               if obj.__module__ == module.__name__ and hasattr(obj, "turn_id")}
    assert defined == COMMANDS


def test_the_ports_have_one_method_per_command_named_after_it() -> None:
    assert _port_methods() == {_method(kind) for kind in COMMANDS}


def test_the_table_runs_each_command_with_the_method_named_after_it() -> None:
    ports = _Recorder()
    table = command_table(ports)  # type: ignore[arg-type]
    assert table.kinds == COMMANDS
    for kind in sorted(COMMANDS, key=lambda k: k.__name__):
        ports.ran.clear()
        table.run(object.__new__(kind))  # only its type matters to the table
        assert ports.ran == [_method(kind)], kind.__name__


@pytest.mark.parametrize("executor", [ControllerCommands, HeadlessExecutor])
def test_each_executor_implements_every_port_itself(executor: type[Any]) -> None:
    missing = {m for m in _port_methods() if m not in vars(executor)}
    assert not missing, f"{executor.__name__} lacks {sorted(missing)}"


def test_the_headless_executor_builds_its_table_from_the_shared_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import desktop_agent.runtime.headless as headless

    built: list[Any] = []

    def spy(ports: CommandPorts) -> HandlerTable:
        built.append(ports)
        return table_module.command_table(ports)

    monkeypatch.setattr(headless, "command_table", spy)
    with HeadlessExecutor(FakeLlm(lambda _: say("Hi.")), FakeTts(), default_tools()) as executor:
        assert built == [executor]
        assert executor._handlers.kinds == COMMANDS
        assert executor.ask_text("Hello?").reply == "Hi."  # and runs its turns through it


def test_the_controller_builds_its_table_from_the_shared_one(
        qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    import desktop_agent.runtime.controller as controller
    from tests.runtime.test_controller_settings import make_controller

    built: list[Any] = []

    def spy(ports: CommandPorts) -> HandlerTable:
        built.append(ports)
        return table_module.command_table(ports)

    monkeypatch.setattr(controller, "command_table", spy)
    c = make_controller()
    try:
        assert len(built) == 1 and isinstance(built[0], ControllerCommands)
        assert c.handlers.kinds == COMMANDS
    finally:
        c.driver.close()


def test_the_controller_shows_only_a_tool_run_at_once_as_used() -> None:
    from types import SimpleNamespace

    from desktop_agent.core.cancel import TurnId
    from desktop_agent.core.ports import ToolCall
    from desktop_agent.core.turns.states import JobId, ToolMode

    sent: list[cmd.RunTool] = []
    used: list[tuple[int, str]] = []
    noop: Any = lambda *_: None  # noqa: E731 - the other reports are not under test
    ports = ControllerCommands(
        jobs=noop, recorder=noop, link=SimpleNamespace(run_tool=sent.append),  # type: ignore[arg-type]
        driver=noop, show_user_text=noop, show_heard=noop, show_action=noop,
        ledger_changed=noop, show_unit=noop, show_reflection=noop,
        show_tool_used=lambda turn, name: used.append((turn, name)))
    for mode in ToolMode:  # a read run; a write's prepare, revise and confirmed execute
        ports.run_tool(cmd.RunTool(turn_id=TurnId(3), job=JobId(1),
                                   call=ToolCall("git__git_status", {}), mode=mode))
    assert len(sent) == len(ToolMode) and used == [(3, "git__git_status")]
