"""The tool decision, shared by every LLM backend: which tools to offer, the note, the call.

A turn decides on a tool in four steps, all here except the model's own run:

1. ``offer_tools``: the router's candidates for the newest user message (``offered_tools``;
   a run that answers a tool's result, or anything but the user, is offered none), and at
   most three of the user's own MCP tools found by their words (``your_tools``). When
   the rules offer nothing, ``tools_by_meaning`` may: the tool whose examples the request
   is nearest to (``core.tools.semantic``; only when the composition root gave a
   ``MeaningRouter``, which also drops a rule's argument-less candidate the request is not
   near). No candidates: the reply is plain prose and the model never sees a tool.
2. ``plan_decision``: when the user's words spell out one candidate's arguments ("remind me
   to X at Y"), or the only candidate is one its catalog entry marks ``alone_is_sure``
   ("what time is it?") and a rule offered it, the call is decided without the model.
3. Otherwise the model is asked: ``decision_note`` follows the user's message (so the prompt
   up to the user's words is the prose run's prompt too, and the KV cache serves both), and
   its answer is constrained to ``call_schema``: one call to a candidate, names as constants,
   or ``{"name": "none"}``. The backend turns the schema into its own constraint (llama.cpp:
   a GBNF grammar) and may stop once the output names a tool in ``Decision.complete_after``.
4. ``Decision.read``: the call in the model's output, with the arguments the user's words gave
   when there are some, else the model's, which must use only words the user said.

The note's text and the schema are rendered from the catalog's specs; keep them stable
(byte-identical prompts let llama.cpp reuse its cache, and the model's choices depend on the
exact words). Pure: stdlib only.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from desktop_agent.core.mcp.config import SEPARATOR
from desktop_agent.core.mcp.retrieval import ToolIndex
from desktop_agent.core.ports import ChatMessage, ToolCall, ToolSpec
from desktop_agent.core.privacy import said
from desktop_agent.core.tools.args import (
    Args,
    adds_to,
    arguments_from_words,
    is_grounded,
    last_clause,
)
from desktop_agent.core.tools.catalog import BUILTIN
from desktop_agent.core.tools.offers import strip_lead
from desktop_agent.core.tools.router import (
    MAX_REQUEST_CHARS,
    asked_after_context,
    asked_before_context,
    candidate_tools,
    is_request,
)
from desktop_agent.core.tools.semantic import MeaningRouter
from desktop_agent.core.tools.slips import as_meant, unaddressed
from desktop_agent.core.tools.tool_def import NO_TOOL, Catalog
from desktop_agent.core.tools.words_spans import is_moment

_LOGGER = logging.getLogger(__name__)

FROM_WORDS: Final = "(from the user's words)"
"""An engine's ``last_decision`` when the user's words decided the call (no model run)."""
CALL_ID: Final = "call_1"
_NAME_HEAD: Final = re.compile(r'^\s*\{\s*"name"\s*:\s*"([^"]+)"')


def offered_tools(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
                  catalog: Catalog = BUILTIN) -> tuple[ToolSpec, ...]:
    """The tools to offer for a run on ``messages`` (the router's, for the user's newest).

    The router's candidates among ``tools`` for the newest message when it is the user's;
    none for a run that answers a tool's result or anything else.
    """
    last = messages[-1] if messages else None
    if last is None or last.role != "user" or not last.content:
        return ()
    return candidate_tools(last.content, tools, catalog)


@dataclass(frozen=True, slots=True)
class Offer:
    """The tools a run offers, and how they were found."""

    tools: tuple[ToolSpec, ...]
    by_meaning: bool = False
    """True: found by meaning (``tools_by_meaning``), not by a keyword rule."""


def offer_tools(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
                meanings: MeaningRouter | None = None, catalog: Catalog = BUILTIN) -> Offer:
    """What a run on ``messages`` offers: the rules' candidates, else the tools by meaning.

    With ``meanings``, a rule's argument-less candidate that the request is not near is
    dropped (``MeaningRouter.veto``: "what's the time difference with Tokyo" is not "what
    time is it"); the request is what is compared, not the context before it ("I've got a
    train at ten past seven, what time is it now?"). Without, exactly ``offered_tools``.
    """
    rules = offered_tools(messages, tools, catalog)
    own = your_tools(messages, tools, catalog)
    if meanings is None:
        return Offer(rules + own)
    if rules:
        said = " ".join(messages[-1].content.split())
        return Offer(meanings.veto(asked_after_context(said) or said, rules) + own)
    if own:
        return Offer(own)
    found = tools_by_meaning(messages, tools, meanings, catalog)
    return Offer(found, by_meaning=bool(found))


def your_tools(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
               catalog: Catalog = BUILTIN) -> tuple[ToolSpec, ...]:
    """The user's own (MCP) tools among ``tools`` a request could need, at most three.

    Tools with no catalog entry and a ``server__tool`` name are found by their words
    (``core.mcp.retrieval``, BM25) for a request (not a statement or text read aloud; a
    command that opens with one of their words counts: "commit my changes"); never pasted
    into the prompt all at once.
    """
    last = messages[-1] if messages else None
    if last is None or last.role != "user" or not last.content:
        return ()
    text = " ".join(last.content.split())
    own = [t for t in tools if t.name not in catalog and SEPARATOR in t.name]
    if not own or len(text) > MAX_REQUEST_CHARS:
        return ()
    index = ToolIndex(own)
    if not is_request(text) and not index.commands(strip_lead(text)):
        return ()
    return index.candidates(text)


def tools_by_meaning(messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
                     meanings: MeaningRouter | None, catalog: Catalog = BUILTIN
                     ) -> tuple[ToolSpec, ...]:
    """The tools to offer by meaning (``core.tools.semantic``) when the rules offer none.

    Only for a run whose newest message is the user's; none without ``meanings`` (no
    embedding model: the rules alone decide). A tool whose ``words`` rule reads the
    request's arguments needs a weaker match (``MeaningSettings.when_read``). The nearest
    tool is not offered when the words lack what its arguments need (``by_meaning_needs``:
    a timer without a number or a unit of time).
    """
    last = messages[-1] if messages else None
    if meanings is None or last is None or last.role != "user" or not last.content.strip():
        return ()
    read = {t.name for t in tools if arguments_from_words(t.name, last.content, catalog)}
    offered = []
    for tool in meanings.offer(last.content, tools, read):
        entry = catalog.get(tool.name)
        if entry is None or entry.by_meaning_needs is None or entry.by_meaning_needs(
                last.content):
            offered.append(tool)
        else:
            _LOGGER.info("turn=0 %s not offered: the words lack what its arguments need",
                         tool.name)
    return tuple(offered)


def takes_arguments(tool: ToolSpec) -> bool:
    """True when ``tool``'s schema has properties."""
    return bool(dict(tool.parameters).get("properties"))


def decision_note(candidates: Sequence[ToolSpec]) -> str:
    """The system note after the user's message that offers ``candidates`` (or "none")."""
    lines = []
    for t in candidates:
        props = dict(dict(t.parameters).get("properties") or {})
        required = set(dict(t.parameters).get("required") or ())
        args = ", ".join(k for k in props if k in required)
        lines.append(f"- {t.name}({args}): {t.description}")
    return ("Tools:\n" + "\n".join(lines) + "\n"
            'If the user\'s last message asks for one of these tools, reply with the call as '
            'JSON {"name": ..., "arguments": {...}}. Copy the words of the user\'s message '
            'into the arguments. Otherwise (chat, a statement, a question you can answer '
            'yourself) reply {"name": "none"}.')


def call_schema(candidates: Sequence[ToolSpec]) -> dict[str, Any]:
    """JSON schema of one call to a tool in ``candidates`` (names as constants) or "none".

    Length limits are left out (in a grammar they nest one rule per character; the token cap
    bounds the call and the registry validates the arguments again), and so are optional
    arguments: the 0.5B filled a timer's optional label with the whole request.
    """
    alternatives: list[dict[str, Any]] = [
        {"type": "object", "properties": {"name": {"const": t.name},
                                          "arguments": _grammar_schema(dict(t.parameters))},
         "required": ["name", "arguments"], "additionalProperties": False}
        for t in candidates]
    alternatives.append({"type": "object", "properties": {"name": {"const": NO_TOOL}},
                         "required": ["name"], "additionalProperties": False})
    return {"oneOf": alternatives}


def _grammar_schema(schema: Any) -> Any:
    if not isinstance(schema, dict) or not schema.get("properties"):
        return {"type": "object", "properties": {}, "additionalProperties": False}
    required = list(schema.get("required") or ())
    props = {k: v for k, v in dict(schema["properties"]).items() if k in required}
    return _without_lengths({**schema, "properties": props, "required": required})


def _without_lengths(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: _without_lengths(v) for k, v in schema.items() if k != "maxLength"}
    if isinstance(schema, list):
        return [_without_lengths(v) for v in schema]
    return schema


def named_tool(text: str) -> str | None:
    """The tool a decision's output names so far (``{"name": "x"...``), or None."""
    head = _NAME_HEAD.match(text)
    return None if head is None else head.group(1)


def parse_decision(text: str, candidates: Sequence[ToolSpec]) -> ToolCall | None:
    """The call in a decision run's output, or None for "none" / anything unusable.

    Never returns a tool outside ``candidates``; a tool without parameters needs only its
    name (the run stops there).
    """
    name = named_tool(text)
    spec = next((t for t in candidates if t.name == name), None)
    if spec is None:
        return None
    if not takes_arguments(spec):
        return ToolCall(name=spec.name, arguments={}, call_id=CALL_ID)
    try:
        data = json.loads(text)
    except ValueError:
        _LOGGER.info("turn=0 dropping an unfinished tool call: %s", said(text[:200]))
        return None
    args = data.get("arguments") if isinstance(data, dict) else None
    if not isinstance(args, dict):
        return None
    return ToolCall(name=spec.name, arguments=args, call_id=CALL_ID)


@dataclass(frozen=True, slots=True)
class Decision:
    """What is known about a request's tool call before the model is asked."""

    candidates: tuple[ToolSpec, ...]
    user: str
    """The user's request."""
    from_words: Mapping[str, Args]
    """The arguments the user's words give, per candidate that has a rule that fits."""
    call: ToolCall | None
    """The call decided without the model (None: the model must be asked)."""

    @property
    def complete_after(self) -> frozenset[str]:
        """Names after which the model's call is fixed (its run may stop there).

        "none", the tools without arguments, and the tools whose arguments come from the
        user's words.
        """
        return frozenset({t.name for t in self.candidates if not takes_arguments(t)}
                         | {NO_TOOL} | set(self.from_words))

    def read(self, text: str) -> ToolCall | None:
        """The call in the model's output ``text`` (None: "none", unusable, or invented)."""
        name = named_tool(text)
        if name is not None and name in self.from_words:
            return ToolCall(name=name, arguments=self.from_words[name], call_id=CALL_ID)
        call = parse_decision(text, self.candidates)
        if call is not None and not is_grounded(call.arguments, self.user):
            _LOGGER.info("turn=0 dropping a call with words the user did not say: %s %s",
                         call.name, said(json.dumps(dict(call.arguments))))
            return None  # an invented argument: the model did not hear a request
        return call


def _asks(user: str) -> bool:
    """The user's words are a request: all of them, or what they ask after some context.

    "I need to write an email, open my mail program" asks through its last clause, "Sorry,
    what time is it?" after its first (``router.asked_after_context``).
    """
    return is_request(user) or asked_after_context(user) is not None or (
        (last := last_clause(user)) is not None and is_request(last))


def _words_of(tool: str, user: str, asked: str | None, catalog: Catalog) -> Args | None:
    """``tool``'s arguments from the words of the request, from the part that asks first.

    When some context comes before the request ("I've got a meeting at three, so can you
    remind me at quarter to three to prep the slides?": the meeting is not the reminder),
    the request alone is read; else, or when it spells out nothing, all of it. All of it
    too when it reads the request's arguments the same and adds one (the context names
    the timer: "the roast has just gone in, could you time an hour and a half for me").
    Words typed as said are read from all of it when the request opens with them, and so
    is a request after a moment ("first thing tomorrow, remind me to ...").
    """
    whole = arguments_from_words(tool, user, catalog)
    if whole is not None and (entry := catalog.get(tool)) is not None and entry.verbatim \
            and entry.words is not None and entry.words(user) == whole:
        return whole  # "type: meeting moved. Bring the figures!": every sentence is typed
    if asked is not None and (args := arguments_from_words(tool, asked, catalog)) is not None:
        said_first = user[:max(0, len(user) - len(asked))].strip(" ,.;")
        if whole is not None and said_first and is_moment(said_first):
            return whole  # "This Friday at 7, remind me to book the taxi for Saturday"
        return whole if adds_to(whole, args) else args
    return whole


def plan_decision(user: str, candidates: Sequence[ToolSpec], *, use_words: bool = True,
                  catalog: Catalog = BUILTIN, by_meaning: bool = False) -> Decision:
    """What the user's words decide about a call to one of ``candidates``.

    Args:
        user: The user's request.
        candidates: The tools offered for it (``offered_tools``).
        use_words: Take arguments from the user's words (``core.tools.args``); False: the
            model's own calls only (the benchmark's ``--llm-only``).
        catalog: Where each candidate's rules are looked up.
        by_meaning: The candidates were found by meaning (``tools_by_meaning``), not by a
            rule: ``alone_is_sure`` does not apply ("what time does the shop close?" is
            near "what time is it?" but asks no tool), so the model decides unless the
            words of a request spell out the arguments of the nearest candidate (the
            first), all of them or their last clause after some context.
    """
    user = as_meant(user)  # "can you- could you", "ten, no, fifteen minutes": as meant
    # "..., pet?" names no timer or note; a note keeps "buy butter, honey"; typing keeps all
    kept, plain = unaddressed(user, names=False), unaddressed(user)
    said = {text: (asked_after_context(text) or asked_before_context(text))
            for text in dict.fromkeys((user, kept, plain))} if use_words else {}

    def words_of(tool: str) -> Args | None:
        entry = catalog.get(tool)
        text = plain if entry is None or not (entry.verbatim or entry.keeps_later_clauses) \
            else user if entry.verbatim else kept
        return _words_of(tool, text, said[text], catalog)

    from_words = {t.name: args for t in candidates if use_words
                  and (args := words_of(t.name)) is not None}
    explicit = [name for name, args in from_words.items() if args and (not by_meaning or (
        name == candidates[0].name and _asks(user)))]
    if not explicit and len(candidates) == 1 and not by_meaning:
        entry = catalog.get(candidates[0].name)
        if entry is not None and entry.alone_is_sure:
            explicit = [entry.name]  # "What time is it?": the router's rule is specific
    call = None
    if len(explicit) == 1:
        # One tool's arguments are spelled out ("remind me to X at Y", "cancel the pasta
        # timer"): the request is explicit, and the 0.5B often answered such requests
        # "none". The call is validated again before anything runs.
        call = ToolCall(name=explicit[0], arguments=from_words.get(explicit[0], {}),
                        call_id=CALL_ID)
    return Decision(tuple(candidates), user, from_words, call)
