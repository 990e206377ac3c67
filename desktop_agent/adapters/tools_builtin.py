"""Built-in read-only tools (they read the clock, so they live outside core)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools import Tool, ToolRegistry


def current_time_tool(now: Callable[[], dt.datetime] | None = None) -> Tool:
    """get_current_time: the local date, time, weekday and time zone."""

    def run(_args: Mapping[str, Any]) -> str:
        # A sentence, not JSON: small models answer from prose far more reliably, and
        # the sentence itself is a correct spoken answer if the model fumbles.
        moment = (now or (lambda: dt.datetime.now().astimezone()))()
        zone = moment.tzname() or "local"
        return (f"It is {moment.strftime('%H:%M')} on {moment.strftime('%A')}, "
                f"{moment.day} {moment.strftime('%B %Y')} (time zone {zone}).")

    spec = ToolSpec(
        name="get_current_time",
        description="Get the current local date, time of day, weekday and time zone.",
        parameters={"type": "object", "properties": {}},
    )
    return Tool(spec=spec, run=run)


def default_tools() -> ToolRegistry:
    """The tools every session has."""
    return ToolRegistry([current_time_tool()])
