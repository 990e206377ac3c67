"""An MCP server's tools as the app sees them: their class, their read-back, their arguments.

The rules (docs/mcp.md):

* an untrusted server (the default): every tool is a confirmed write, whatever its
  annotations say (the spec: clients must not decide on annotations from untrusted servers);
* a trusted server: a ``readOnlyHint: true`` tool is a read (runs at once), every other tool a
  confirmed write;
* ``allow = "never"`` hides a tool; ``allow = "always"`` lets a trusted server's write run
  without a read-back, but never a destructive tool or one whose ``destructiveHint`` is not
  set to false (the protocol's default is destructive);
* the read-back is built from the structured call (server, the tool's title, the arguments
  the user said), never from a result or file contents;
* pinned arguments are dropped from what the model is offered and injected at call time, so
  a voice cannot dictate them.

Pure: stdlib only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

from desktop_agent.core.mcp.config import SEPARATOR, Allow, ServerChoice
from desktop_agent.core.ports import ToolSpec

TOOL_BUDGET: Final = 10
"""Above this many enabled tools of your own, ``mcp list`` warns: the 0.5B confuses
neighbours, and only three are offered per request anyway."""
_SPOKEN_VALUE_CHARS: Final = 60
"""An argument longer than this is cut in the read-back (never a file's contents aloud)."""


class ToolClass(Enum):
    """How a tool runs."""

    READ = "read"
    """Runs at once (a trusted server's read-only tool)."""
    WRITE = "write"
    """Read back first; runs only after the user's yes, once."""
    ALWAYS = "always"
    """A trusted, non-destructive write the user allowed to run without asking."""
    NEVER = "never"
    """Hidden: never offered, never run."""


@dataclass(frozen=True, slots=True)
class McpTool:
    """One tool a server lists, with its annotations (None: the server did not say)."""

    server: str
    name: str
    """Its name on the server."""
    description: str = ""
    title: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    @property
    def full_name(self) -> str:
        """The app's name for it: ``server__tool``."""
        return f"{self.server}{SEPARATOR}{self.name}"

    @property
    def label(self) -> str:
        """What the user hears it called: its title, else its name in words."""
        return self.title or self.name.replace("_", " ")


def split_name(full_name: str) -> tuple[str, str] | None:
    """``("git", "git_status")`` for ``"git__git_status"``; None when not an MCP name."""
    server, sep, tool = full_name.partition(SEPARATOR)
    return (server, tool) if sep and server and tool else None


def classify(tool: McpTool, choice: ServerChoice) -> ToolClass:
    """The class of ``tool`` on a server configured with ``choice`` (see the module rules)."""
    allow = choice.allow.get(tool.name, Allow.ASK)
    if allow is Allow.NEVER:
        return ToolClass.NEVER
    if not choice.trusted:
        return ToolClass.WRITE
    if tool.read_only is True:
        return ToolClass.READ
    if allow is Allow.ALWAYS and may_always(tool):
        return ToolClass.ALWAYS
    return ToolClass.WRITE


def may_always(tool: McpTool) -> bool:
    """True when ``tool`` may be set to "always": annotated, and not destructive."""
    return tool.read_only is True or tool.destructive is False


def retry_allowed(tool: McpTool, choice: ServerChoice) -> bool:
    """True when a call of ``tool`` may be sent again after a lost connection.

    Only when a trusted server says it is idempotent; a timeout is never retried (the call
    may still run).
    """
    return choice.trusted and tool.idempotent is True


def refused_allows(tools: list[McpTool], choice: ServerChoice) -> tuple[str, ...]:
    """A sentence per ``allow = "always"`` that does not apply, and why."""
    out = []
    for tool in tools:
        if choice.allow.get(tool.name) is not Allow.ALWAYS:
            continue
        if not choice.trusted:
            out.append(f'{tool.full_name}: "always" needs a trusted server; it asks.')
        elif not may_always(tool):
            out.append(f'{tool.full_name}: "always" is refused for a destructive or '
                       'unannotated tool; it asks.')
    return tuple(out)


def offered_schema(tool: McpTool, pinned: Mapping[str, Any]) -> dict[str, Any]:
    """``tool``'s argument schema without the pinned arguments (what the model may fill)."""
    schema = dict(tool.input_schema) or {"type": "object", "properties": {}}
    props = {k: v for k, v in dict(schema.get("properties") or {}).items() if k not in pinned}
    required = [k for k in schema.get("required") or () if k not in pinned]
    out = {**schema, "type": "object", "properties": props}
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def call_arguments(args: Mapping[str, Any], pinned: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments sent to the server: the said ones, the pinned ones over them."""
    return {**{k: v for k, v in args.items() if k not in pinned}, **pinned}


def turn_wait_s(timeout_s: float) -> float:
    """How long a turn waits for one call on a server whose calls may take ``timeout_s``.

    The hub gives up on the call itself at ``timeout_s`` (the answer is then "outcome
    unknown"); an idempotent read may wait as long again for its restarted server and be
    sent once more. The turn's own limit is past both, so the user hears what happened
    rather than the turn's generic apology (the hub's own guard is the same).
    """
    return 2 * timeout_s + 5


def spec_of(tool: McpTool, choice: ServerChoice) -> ToolSpec:
    """What the decision run and the registry see of ``tool``."""
    first = tool.description.strip().splitlines()[0] if tool.description.strip() else ""
    words = f"{tool.title}. {first}" if tool.title and tool.title not in first else first
    return ToolSpec(tool.full_name, words or tool.label, offered_schema(tool, choice.pinned),
                    writes=classify(tool, choice) is ToolClass.WRITE,
                    timeout_s=turn_wait_s(choice.timeout_s))


def read_back(tool: McpTool, args: Mapping[str, Any], pinned: Mapping[str, Any]) -> str:
    """The question the user confirms: server, the tool's title, the arguments they said.

    Pinned arguments are left out (the user did not say them; the card shows them), and a
    long value is cut: the read-back never reads out a document.
    """
    said = [f"{k.replace('_', ' ')} {_spoken(v)}" for k, v in args.items() if k not in pinned]
    with_args = f", with {'; '.join(said)}" if said else ""
    return f"On {tool.server}: {tool.label}{with_args}. Shall I?"


def _spoken(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    if len(text) > _SPOKEN_VALUE_CHARS:
        text = text[:_SPOKEN_VALUE_CHARS - 3].rstrip() + "..."
    return f'"{text}"' if isinstance(value, str) else text


def too_many(count: int) -> str:
    """The warning for ``count`` enabled tools of your own ('' up to ``TOOL_BUDGET``)."""
    if count <= TOOL_BUDGET:
        return ""
    return (f"{count} tools of your own are enabled; the small model chooses best among "
            f"about {TOOL_BUDGET}: set allow = \"never\" for the ones you do not use.")


def hints_line(tool: McpTool) -> str:
    """The annotations in words, for ``mcp list`` and the card ("read-only, idempotent")."""
    words = []
    for flag, yes, no in ((tool.read_only, "read-only", "changes things"),
                          (tool.destructive, "destructive", "not destructive"),
                          (tool.idempotent, "idempotent", ""),
                          (tool.open_world, "may reach the network", "local")):
        if flag is not None and (yes if flag else no):
            words.append(yes if flag else no)
    return ", ".join(words) or "no annotations"


SPOKEN_RESULT_CHARS: Final = 300
"""A read's answer is spoken: longer text is cut (the window keeps the whole result)."""


def spoken_result(text: str, structured: Any = None) -> str:
    """A read tool's answer as something to say: its structured fields, else its text.

    ``{"result": x}`` is ``x``; a flat object is "key: value" pairs; anything else is the
    text, one line a sentence, cut at ``SPOKEN_RESULT_CHARS``.
    """
    if isinstance(structured, dict):
        if set(structured) == {"result"} and isinstance(structured["result"], str | int | float):
            return str(structured["result"])
        pairs = [(k, v) for k, v in structured.items()
                 if isinstance(v, str | int | float) and not isinstance(v, bool)]
        if pairs:
            return "; ".join(f"{k.replace('_', ' ')}: {v}" for k, v in pairs[:6]) + "."
    said = ". ".join(line.strip().rstrip(".:") for line in text.splitlines() if line.strip())
    if len(said) > SPOKEN_RESULT_CHARS:
        said = said[:SPOKEN_RESULT_CHARS].rsplit(" ", 1)[0] + " ..."
    return said or "It answered nothing."
