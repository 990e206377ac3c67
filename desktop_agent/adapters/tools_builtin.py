"""Built-in read-only tools (they read the clock, so they live outside core)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools import Tool, ToolRegistry


def current_time_tool(now: Callable[[], dt.datetime] | None = None) -> Tool:
    """get_current_time: the local date, time, weekday and time zone."""

    def run(_args: Mapping[str, Any]) -> str:
        moment = (now or (lambda: dt.datetime.now().astimezone()))()
        return json.dumps({
            "time": moment.strftime("%H:%M"),
            "weekday": moment.strftime("%A"),
            "date": moment.strftime("%Y-%m-%d"),
            "timezone": moment.tzname() or "local",
        })

    spec = ToolSpec(
        name="get_current_time",
        description="Get the current local date, time of day, weekday and time zone.",
        parameters={"type": "object", "properties": {}},
    )
    return Tool(spec=spec, run=run)


def default_tools() -> ToolRegistry:
    """The tools every session has."""
    return ToolRegistry([current_time_tool()])
