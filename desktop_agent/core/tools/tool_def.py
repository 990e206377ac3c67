"""What a catalog entry is: ``ToolDef`` (one tool, all of it), its ``Risk``, and ``Catalog``.

The entries themselves, and how to add one, are in ``core.tools.catalog``.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools.write_actions import ReadBack

Args = dict[str, Any]
Offer = Callable[[str], bool]
"""A router rule: could this request (a transcript, spaces collapsed) need the tool?"""
Words = Callable[[str], Args | None]
"""Arguments in the user's own words, or None when the request does not spell them out."""
Answer = Callable[[Mapping[str, Any], dt.datetime], str]
"""A pure read: validated arguments and the local time (aware) in, one spoken sentence out."""
NO_TOOL: Final = "none"
"""The one name no tool may have: the decision's answer when no tool fits, and the label
of the examples of requests for none (``catalog.NO_TOOL_EXAMPLES``)."""
_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
"""A tool name: it is written into JSON and a grammar, so no spaces or quotes."""


TEXT: Final = {"type": "string", "minLength": 1, "maxLength": 200}
"""The schema of a text argument (a note, a query)."""
SHORT: Final = {"type": "string", "maxLength": 60}
"""The schema of a short argument (a duration, a label, a setting)."""


def schema(required: dict[str, dict[str, Any]], optional: dict[str, dict[str, Any]] | None = None
           ) -> dict[str, Any]:
    """An entry's ``parameters``: an object of ``required`` and ``optional`` properties."""
    props = {**required, **(optional or {})}
    return {"type": "object", "properties": props, "required": list(required),
            "additionalProperties": False}


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
    verbatim: bool = False
    """Its ``words`` rule gets the request with only the politeness it opens with removed:
    a closing "thank you" may be part of its text ("type thank you")."""
    keeps_later_clauses: bool = False
    """Its text is the user's own words to keep (a note, a reminder): a clause said after
    the request may be part of it ("note that the milk is off, it smells"). Other tools'
    arguments name something (a timer, a folder, the notes to find), so context said after
    the request is left out of them ("cancel the pasta timer, it's done already": "pasta")."""
    alone_is_sure: bool = False
    """Offered alone and with no arguments said, it is called without asking the model: its
    router rule is specific enough, and a decision run costs ~1.3 s on two cores."""
    by_meaning_needs: Offer | None = None
    """What the words must hold for the tool to be offered by meaning (a timer: a number or
    a unit of time). Its arguments must be words the user said, so without them its call
    would be dropped after a decision run of one to four seconds ("give me a tip for
    sleeping better" is near "give me 3 minutes for the tea"). None: no condition."""
    examples: tuple[str, ...] = ()
    """Everyday requests for it, as a user would say them (10-30, varied: word order, verbs,
    with and without its arguments). When no router rule offers a tool for a request, the
    request's meaning is compared with these (``core.tools.semantic``) and the nearest tools
    are offered to the model, which may still answer "none". Empty: offered by its rule only.
    """
    spec: ToolSpec = field(init=False)
    """What the model and the registry see (built from the fields above)."""

    def __post_init__(self) -> None:
        """Build ``spec`` and refuse an entry that could not run or be confirmed."""
        if self.name == NO_TOOL or not _NAME.fullmatch(self.name):
            raise ValueError(f"bad tool name {self.name!r}")
        if (self.answer is None) == (not self.executor):
            raise ValueError(f"{self.name}: give exactly one of answer and executor")
        if (self.risk is Risk.WRITE) != (self.read_back is not None):
            raise ValueError(f"{self.name}: a write needs a read_back, a read has none")
        if self.risk is Risk.WRITE and (self.answer is not None or not self.hint):
            raise ValueError(f"{self.name}: a write runs in an executor and needs a hint")
        if any(not isinstance(e, str) or not e.strip() for e in self.examples):
            raise ValueError(f"{self.name}: every example is a non-empty sentence")
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

