"""The built-in tools' names and argument schemas: one fixed list, the single source of truth.

The grammar the LLM decodes tool calls with is built from these schemas, the registry
validates calls against them, and the write path reads ``ToolSpec.writes``. Arguments are
kept as the user said them ("5 minutes", "tomorrow at 9"): a small model copies words from
the request far more reliably than it computes seconds or dates, and the application then
parses them deterministically (``core.tools.when``, ``core.tools.calc``, ``core.tools.units``).

Keep this list stable: it is rendered into the system prompt, and a byte-identical prefix
lets llama.cpp reuse its KV cache across turns.
"""

from __future__ import annotations

from typing import Any, Final

from desktop_agent.core.ports import ToolSpec


def _obj(required: dict[str, dict[str, Any]], optional: dict[str, dict[str, Any]] | None = None
         ) -> dict[str, Any]:
    props = {**required, **(optional or {})}
    return {"type": "object", "properties": props, "required": list(required),
            "additionalProperties": False}


_TEXT: Final = {"type": "string", "minLength": 1, "maxLength": 200}
_SHORT: Final = {"type": "string", "maxLength": 60}

GET_CURRENT_TIME: Final = ToolSpec(
    name="get_current_time",
    description="The current local date, time of day, weekday and time zone.",
    parameters=_obj({}),
)
CALCULATE: Final = ToolSpec(
    name="calculate",
    description="Exact arithmetic on numbers the user gives (the expression in their words).",
    parameters=_obj({"expression": {"type": "string", "minLength": 1, "maxLength": 120}}),
)
CONVERT_UNITS: Final = ToolSpec(
    name="convert_units",
    description="Convert a quantity the user gives from one unit to another.",
    parameters=_obj({"value": {"type": "number"}, "from_unit": _SHORT, "to_unit": _SHORT}),
)
LIST_NOTES: Final = ToolSpec(
    name="list_notes",
    description="Read the user's saved notes aloud.",
    parameters=_obj({}),
)
SEARCH_NOTES: Final = ToolSpec(
    name="search_notes",
    description="Find the user's saved notes that mention some words.",
    parameters=_obj({"query": _TEXT}),
)
LIST_TIMERS: Final = ToolSpec(
    name="list_timers",
    description="The running timers and the coming reminders, with the time left.",
    parameters=_obj({}),
)
ADD_NOTE: Final = ToolSpec(
    name="add_note",
    description="Save a note with the user's words.",
    parameters=_obj({"text": _TEXT}),
    writes=True,
)
DELETE_NOTES: Final = ToolSpec(
    name="delete_notes",
    description="Delete the saved notes that mention some words ('all' deletes every note).",
    parameters=_obj({"query": _TEXT}),
    writes=True,
)
SET_TIMER: Final = ToolSpec(
    name="set_timer",
    description="Start a countdown timer for a duration the user gives (optional label).",
    parameters=_obj({"duration": _SHORT}, {"label": _SHORT}),
    writes=True,
)
SET_REMINDER: Final = ToolSpec(
    name="set_reminder",
    description="Remind the user of something (text) at a time they give (when).",
    parameters=_obj({"text": _TEXT, "when": _SHORT}),
    writes=True,
)
CANCEL_TIMER: Final = ToolSpec(
    name="cancel_timer",
    description="Cancel a running timer or a coming reminder (which: its label or words, "
                "or 'all').",
    parameters=_obj({"which": _SHORT}),
    writes=True,
)

BUILTIN_SPECS: Final[tuple[ToolSpec, ...]] = (
    GET_CURRENT_TIME, CALCULATE, CONVERT_UNITS, LIST_NOTES, SEARCH_NOTES, LIST_TIMERS,
    ADD_NOTE, DELETE_NOTES, SET_TIMER, SET_REMINDER, CANCEL_TIMER,
)
"""Every built-in tool, reads first."""

WRITE_TOOLS: Final = frozenset(s.name for s in BUILTIN_SPECS if s.writes)
"""Names of the tools that change things (they run only after a confirmed read-back)."""
