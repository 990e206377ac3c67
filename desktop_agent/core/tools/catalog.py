"""The tool catalog: one ``ToolDef`` entry per tool, the one list every part reads.

An entry says everything about a tool: its name and argument schema (what the model sees),
its risk (a read answers at once; a write changes the user's things and runs only after a
confirmed read-back), the rule that offers it for a request, the rule that cuts its arguments
from the user's words, how a write is read back, and how it runs. The router
(``core.tools.router``), the argument step (``core.tools.args``), the decision note and call
grammar (``core.tools.decision``), the confirmation path (``core.tools.confirm``), the tool
executors (``adapters/store/tools_builtin.py``, ``adapters/store/write_desk.py``) and
``desktop-agent bench tools`` all read ``BUILTIN``; none keeps a list of its own.

How to add a tool
-----------------
1. Write what it does. A read that needs only its arguments and the time is a pure function
   in core, ``answer(args, now) -> str`` (one spoken sentence, never JSON), and nothing else
   has to change. Anything that needs the outside world runs in an adapter: name it in
   ``executor`` (``"builtin"``: ``adapters/store/tools_builtin.py``, by tool name). A new
   module also goes in ``core/tools/__init__.py``'s ``__all__`` and in
   ``tests/arch/test_public_names.py``, as every module does.
2. Write its router rule, ``offered(text) -> bool``: keyword patterns that say a request
   could need it (the text is a request already, spaces collapsed). Err on the side of
   offering: the model, constrained to the candidates or "none", makes the final choice.
3. If its arguments are usually spelled out ("on the 14th"), write ``words(text)``: the
   arguments in the user's own words, or None when the request does not say them. Keep
   values as said ("tomorrow at 9"): the application parses them, the model only copies.
4. Add the entry to ``BUILTIN`` below: reads before writes, a new one at the end of its
   group. A write also needs ``read_back`` (validated arguments -> the question the user
   confirms), ``hint`` (what the model is told when its arguments are missing),
   ``confirm_verb`` and ``revised``.
5. Test the rules and the answer in ``tests/core/tools/``, and add a few everyday phrasings
   to ``devtools/data/tool_utterances.jsonl`` (its test wants every tool there). Measure on
   held-out phrasings written without reading the rules, and never tune a rule to a
   held-out miss: ``desktop-agent bench tools`` reports both sets.

``day_of_week`` (``core/tools/weekday.py``) is a complete small example of steps 1-4.
Keep the names, descriptions and schemas stable: the decision note and call grammar are
rendered from them, and byte-identical prompts let llama.cpp reuse its cache.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools import offers, weekday, words
from desktop_agent.core.tools import write_actions as wa
from desktop_agent.core.tools.offers import alarm_tools, note_tools, picked_by
from desktop_agent.core.tools.write_actions import ReadBack

Args = dict[str, Any]
Offer = Callable[[str], bool]
"""A router rule: could this request (a transcript, spaces collapsed) need the tool?"""
Words = Callable[[str], Args | None]
"""Arguments in the user's own words, or None when the request does not spell them out."""
Answer = Callable[[Mapping[str, Any], dt.datetime], str]
"""A pure read: validated arguments and the local time (aware) in, one spoken sentence out."""
_NO_TOOL: Final = "none"
"""Reserved: the decision's answer for "no tool" (``core.tools.decision.NONE_TOOL``)."""
_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
"""A tool name: it is written into JSON and a grammar, so no spaces or quotes."""


class Risk(Enum):
    """What running a tool may do."""

    READ = "read"
    """Answers from what is there; runs at once."""
    WRITE = "write"
    """Changes the user's things; runs only as a confirmed, read-back action."""


@dataclass(frozen=True, slots=True)
class ToolDef:
    """One tool, all of it: what the model sees, when it is offered, how it runs."""

    name: str
    """What the model calls it (letters, digits, '_' or '-'; the built-ins are lower case,
    words joined by '_'); never 'none'."""
    description: str
    """One line for the decision note: what it does, and what each argument holds."""
    parameters: Mapping[str, Any]
    """JSON schema of the arguments (the subset ``core.tools.registry.validate_args``
    checks: an object of strings and numbers)."""
    risk: Risk
    """READ or WRITE (see ``Risk``); the spec's ``writes`` follows it."""
    offered: Offer
    """The router's rule for it (see ``Offer``)."""
    words: Words | None = None
    """Its arguments from the user's words; None: a tool without arguments gets {}, any
    other is filled by the model."""
    answer: Answer | None = None
    """A pure read's implementation; None when an ``executor`` runs the tool."""
    executor: str = ""
    """The key of the adapter that runs it ('builtin': ``adapters/store/tools_builtin.py``);
    '' for a pure ``answer``."""
    read_back: ReadBack | None = None
    """A write's read-back: validated arguments -> the action the user confirms."""
    hint: str = ""
    """A write's message to the model when its arguments are missing or empty."""
    confirm_verb: str = "do it"
    """A write's verb in the plainer second question ("Say yes to start it, or no.")."""
    revised: str = ""
    """The argument a spoken change ("make it 6 pm") replaces; '': it cannot be revised."""
    alone_is_sure: bool = False
    """Offered alone and with no arguments said, it is called without asking the model: its
    router rule is specific enough, and a decision run costs ~1.3 s on two cores."""
    spec: ToolSpec = field(init=False)
    """What the model and the registry see (built from the fields above)."""

    def __post_init__(self) -> None:
        """Build ``spec`` and refuse an entry that could not run or be confirmed."""
        if self.name == _NO_TOOL or not _NAME.fullmatch(self.name):
            raise ValueError(f"bad tool name {self.name!r}")
        if (self.answer is None) == (not self.executor):
            raise ValueError(f"{self.name}: give exactly one of answer and executor")
        if (self.risk is Risk.WRITE) != (self.read_back is not None):
            raise ValueError(f"{self.name}: a write needs a read_back, a read has none")
        if self.risk is Risk.WRITE and (self.answer is not None or not self.hint):
            raise ValueError(f"{self.name}: a write runs in an executor and needs a hint")
        spec = ToolSpec(self.name, self.description, self.parameters,
                        writes=self.risk is Risk.WRITE)
        object.__setattr__(self, "spec", spec)

    @property
    def writes(self) -> bool:
        """True for a write (it needs a confirmed read-back)."""
        return self.risk is Risk.WRITE

    @property
    def takes_arguments(self) -> bool:
        """True when its schema has properties."""
        return bool(dict(self.parameters).get("properties"))


class Catalog:
    """Tools by name, in a fixed order (prompts rendered from it stay byte-identical)."""

    def __init__(self, tools: Iterable[ToolDef]) -> None:
        """Hold ``tools`` in order; names are unique."""
        self._tools: dict[str, ToolDef] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"tool {tool.name!r} is in the catalog twice")
            self._tools[tool.name] = tool

    def __iter__(self) -> Iterator[ToolDef]:
        """The entries in catalog order."""
        return iter(self._tools.values())

    def __len__(self) -> int:
        """How many tools."""
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        """True when a tool of that name is in the catalog."""
        return name in self._tools

    def __getitem__(self, name: str) -> ToolDef:
        """The entry named ``name`` (KeyError if none)."""
        return self._tools[name]

    def get(self, name: str) -> ToolDef | None:
        """The entry named ``name``, or None."""
        return self._tools.get(name)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """Every tool's spec, in catalog order."""
        return tuple(t.spec for t in self._tools.values())

    @property
    def write_names(self) -> frozenset[str]:
        """Names of the tools that change things."""
        return frozenset(t.name for t in self._tools.values() if t.writes)

    def joined(self, more: Iterable[ToolDef]) -> Catalog:
        """This catalog with ``more`` entries after its own (desktop, MCP tools...)."""
        return Catalog([*self, *more])


def _obj(required: dict[str, dict[str, Any]], optional: dict[str, dict[str, Any]] | None = None
         ) -> dict[str, Any]:
    props = {**required, **(optional or {})}
    return {"type": "object", "properties": props, "required": list(required),
            "additionalProperties": False}


_TEXT: Final = {"type": "string", "minLength": 1, "maxLength": 200}
_SHORT: Final = {"type": "string", "maxLength": 60}
_BUILTIN: Final = "builtin"

BUILTIN: Final = Catalog([
    # --- reads ----------------------------------------------------------------------------
    ToolDef(
        name="get_current_time",
        description="The current local date, time of day, weekday and time zone.",
        parameters=_obj({}), risk=Risk.READ, offered=offers.asks_time,
        executor=_BUILTIN, alone_is_sure=True),
    ToolDef(
        name="calculate",
        description="Exact arithmetic on numbers the user gives (the expression in their words).",
        parameters=_obj({"expression": {"type": "string", "minLength": 1, "maxLength": 120}}),
        risk=Risk.READ, offered=offers.asks_calculation, words=words.calculate_args,
        executor=_BUILTIN),
    ToolDef(
        name="convert_units",
        description="Convert a quantity the user gives from one unit to another.",
        parameters=_obj({"value": {"type": "number"}, "from_unit": _SHORT, "to_unit": _SHORT}),
        risk=Risk.READ, offered=offers.asks_conversion, words=words.convert_units_args,
        executor=_BUILTIN),
    ToolDef(
        name="list_notes",
        description="Read the user's saved notes aloud.",
        parameters=_obj({}), risk=Risk.READ, offered=picked_by(note_tools, "list_notes"),
        executor=_BUILTIN, alone_is_sure=True),
    ToolDef(
        name="search_notes",
        description="Find the user's saved notes that mention some words.",
        parameters=_obj({"query": _TEXT}), risk=Risk.READ,
        offered=picked_by(note_tools, "search_notes"), words=words.search_notes_args,
        executor=_BUILTIN),
    ToolDef(
        # Not alone_is_sure: its rule is loose ("what's the difference between a timer and
        # a stopwatch?" would list the timers), so the model decides.
        name="list_timers",
        description="The running timers and the coming reminders, with the time left.",
        parameters=_obj({}), risk=Risk.READ, offered=picked_by(alarm_tools, "list_timers"),
        executor=_BUILTIN),
    ToolDef(
        name="day_of_week",
        description="The weekday of a date the user gives (date: their words, e.g. "
                    "'the 14th' or 'March 3rd').",
        parameters=_obj({"date": {"type": "string", "minLength": 1, "maxLength": 60}}),
        risk=Risk.READ, offered=weekday.asks_weekday, words=weekday.weekday_args,
        answer=weekday.say_weekday),
    # --- writes ---------------------------------------------------------------------------
    ToolDef(
        name="add_note",
        description="Save a note with the user's words.",
        parameters=_obj({"text": _TEXT}), risk=Risk.WRITE,
        offered=picked_by(note_tools, "add_note"), words=words.add_note_args,
        executor=_BUILTIN, read_back=wa.add_note_action, hint=wa.ADD_NOTE_HINT,
        confirm_verb="add it", revised="text"),
    ToolDef(
        name="delete_notes",
        description="Delete the saved notes that mention some words ('all' deletes every note).",
        parameters=_obj({"query": _TEXT}), risk=Risk.WRITE,
        offered=picked_by(note_tools, "delete_notes"), words=words.delete_notes_args,
        executor=_BUILTIN, read_back=wa.delete_notes_action, hint=wa.DELETE_NOTES_HINT,
        confirm_verb="delete them", revised="query"),
    ToolDef(
        name="set_timer",
        description="Start a countdown timer for a duration the user gives (optional label).",
        parameters=_obj({"duration": _SHORT}, {"label": _SHORT}), risk=Risk.WRITE,
        offered=picked_by(alarm_tools, "set_timer"), words=words.set_timer_args,
        executor=_BUILTIN, read_back=wa.set_timer_action, hint=wa.SET_TIMER_HINT,
        confirm_verb="start it", revised="duration"),
    ToolDef(
        name="set_reminder",
        description="Remind the user of something (text) at a time they give (when).",
        parameters=_obj({"text": _TEXT, "when": _SHORT}), risk=Risk.WRITE,
        offered=picked_by(alarm_tools, "set_reminder"), words=words.set_reminder_args,
        executor=_BUILTIN, read_back=wa.set_reminder_action, hint=wa.SET_REMINDER_HINT,
        confirm_verb="set it", revised="when"),
    ToolDef(
        name="cancel_timer",
        description="Cancel a running timer or a coming reminder (which: its label or words, "
                    "or 'all').",
        parameters=_obj({"which": _SHORT}), risk=Risk.WRITE,
        offered=picked_by(alarm_tools, "cancel_timer"), words=words.cancel_timer_args,
        executor=_BUILTIN, read_back=wa.cancel_timer_action, hint=wa.CANCEL_TIMER_HINT,
        confirm_verb="cancel it", revised="which"),
])
"""Every built-in tool, reads first."""
