"""The OpenAI chat-completions wire format, pure: URLs, requests, stream events, tool calls.

``adapters/llm/llm_openai.py`` speaks HTTP; everything here is stdlib-only data work, so the
rules are tested in microseconds and shared by every server (llama.cpp's ``llama-server``,
vLLM, anything OpenAI-compatible).

Tool calls follow the local path (``adapters/llm/llm_llama.py``): only the tools that
``core.tools.decision.offered_tools`` finds for the newest user message are offered; a call
is accepted only for one of those tools, with its arguments taken from the user's own
words when ``core.tools.args`` can cut them out, else the model's, validated against the
tool's schema (``core.tools.registry.validate_args``) and grounded in what the user said
(``core.tools.args.is_grounded``). A tool's result goes back as the same system note the
local path uses (small models answer from it instead of calling the tool again).

A server whose chat template has no tool-call parser streams the call as plain text
(``{"name": ..., "arguments": ...}``, maybe inside ``<tool_call>`` tags or a code fence):
``might_be_call`` tells the adapter to hold such text back, never to speak it, and
``call_in_text`` reads the call out of it.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from desktop_agent.core.conversation.prompts import tool_result_note
from desktop_agent.core.errors import AgentError
from desktop_agent.core.ports import ChatMessage, ToolCall, ToolSpec
from desktop_agent.core.tools.args import arguments_from_words, is_grounded
from desktop_agent.core.tools.registry import validate_args

DEFAULT_SERVER_URL: Final = "http://127.0.0.1:8080/v1"
"""llama.cpp's ``llama-server`` on this computer, its default port."""
MAX_URL_CHARS: Final = 300
DONE: Final = "[DONE]"
"""The data of the stream's last event."""
_CALL_TAG: Final = "<tool_call>"
_FENCE: Final = "```"


@dataclass(frozen=True, slots=True)
class ServerUrl:
    """Where the chat server listens, split into what a connection needs."""

    scheme: str
    """'http' or 'https'."""
    host: str
    port: int
    base_path: str
    """Path prefix of the API without a trailing slash, e.g. '/v1'."""

    @property
    def chat_path(self) -> str:
        """The path of the chat-completions endpoint."""
        return f"{self.base_path}/chat/completions"

    @property
    def loopback(self) -> bool:
        """True when the server is on this computer (localhost, 127.0.0.0/8, ::1)."""
        return is_loopback(self.host)

    def display(self) -> str:
        """The URL as the user wrote it, minus nothing secret (URLs carry no secrets here)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.base_path}"


def is_loopback(host: str) -> bool:
    """True for 'localhost' and loopback addresses (IPv4 127.0.0.0/8, IPv6 ::1)."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_problem(url: str) -> str:
    """Why ``url`` cannot be a chat server's address ('' when it can).

    Accepted: ``http://`` or ``https://``, a host, an optional port and path. Refused:
    credentials in the URL (an API key belongs in an environment variable), a query or a
    fragment, control characters, more than ``MAX_URL_CHARS`` characters.
    """
    if len(url) > MAX_URL_CHARS or any(ord(c) < 33 for c in url):
        return f"must be a URL without spaces or control characters, at most {MAX_URL_CHARS} long"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError for a port out of range or not a number)
    except ValueError as exc:
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "must start with http:// or https://"
    if not parts.hostname:
        return "must name a host, e.g. http://127.0.0.1:8080/v1"
    if parts.username is not None or parts.password is not None:
        return "must not hold a user name or password (put the API key in an environment variable)"
    if parts.query or parts.fragment:
        return "must not have a query (?...) or a fragment (#...)"
    return ""


def parse_server_url(url: str) -> ServerUrl:
    """Split a chat server URL; a bare host gets the OpenAI prefix '/v1'.

    Raises:
        AgentError: ``server_url_invalid`` (with the fix) when ``url_problem`` finds one.
    """
    problem = url_problem(url)
    if problem:
        raise AgentError("server_url_invalid", f"The LLM server URL {url!r} {problem}.",
                         "Set llm.server_url in Settings, e.g. http://127.0.0.1:8080/v1.")
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    path = parts.path.rstrip("/")
    if path.endswith("/chat/completions"):
        path = path[: -len("/chat/completions")]
    return ServerUrl(parts.scheme, parts.hostname or "", port, path or "/v1")


# --- requests ---------------------------------------------------------------------------------


def wire_messages(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """``messages`` as OpenAI chat messages, each tool call + result as one system note.

    The same rendering as the local path: an assistant message that only called a tool
    is left out, and the tool's result becomes ``core.conversation.prompts.tool_result_note``.
    """
    out: list[dict[str, str]] = []
    for msg in messages:
        if msg.role == "assistant" and msg.tool_call is not None and not msg.content:
            continue
        if msg.role == "tool":
            out.append({"role": "system",
                        "content": tool_result_note(msg.name or "tool", msg.content)})
            continue
        out.append({"role": msg.role, "content": msg.content})
    return out


def wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """``tools`` as OpenAI function tools."""
    return [{"type": "function", "function": {
        "name": t.name, "description": t.description,
        "parameters": dict(t.parameters) or {"type": "object", "properties": {}}}}
        for t in tools]


def chat_body(messages: Sequence[ChatMessage], *, model: str, tools: Sequence[ToolSpec],
              max_tokens: int, temperature: float, seed: int | None = None,
              json_schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON body of one streamed chat-completions request.

    ``model`` '' leaves the field out (llama-server serves the one model it loaded; vLLM
    and hosted APIs need the name). ``json_schema`` asks for an answer in that shape
    (``response_format``; llama-server and vLLM enforce it while decoding).
    """
    body: dict[str, Any] = {"messages": wire_messages(messages), "stream": True,
                            "max_tokens": max_tokens, "temperature": temperature}
    if model:
        body["model"] = model
    if seed is not None:
        body["seed"] = seed
    if tools:
        body["tools"] = wire_tools(tools)
        body["tool_choice"] = "auto"
    if json_schema is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": "answer", "schema": dict(json_schema), "strict": True}}
    return body


# --- the stream -------------------------------------------------------------------------------


def sse_data(line: str) -> str | None:
    """The payload of one Server-Sent Events line: ``data: X`` gives X, anything else None.

    Comments (``: ping``), ``event:``/``id:``/``retry:`` fields and the blank lines between
    events carry nothing for a chat stream.
    """
    if not line.startswith("data:"):
        return None
    data = line[5:]
    return data[1:] if data.startswith(" ") else data


@dataclass
class _CallPart:
    call_id: str = ""
    name: str = ""
    arguments: str = ""


@dataclass
class StreamState:
    """What one streamed completion has said so far: text pieces and tool-call fragments.

    Servers send a tool call in fragments (``delta.tool_calls[i]`` with an ``index``; the
    id and name first, the arguments as pieces of one JSON string); this keeps them apart
    by index and joins them.
    """

    calls: dict[int, _CallPart] = field(default_factory=dict)
    finish_reason: str | None = None

    def feed(self, event: Mapping[str, Any]) -> str:
        """Take one decoded stream event; return its text ('' when it has none).

        Raises:
            ValueError: an event that is not a chat-completion chunk (or an error event).
        """
        if "error" in event and not event.get("choices"):
            error = event["error"]
            message = error.get("message") if isinstance(error, Mapping) else error
            raise ValueError(f"the server reported an error mid-stream: {message}")
        choices = event.get("choices")
        if not isinstance(choices, list):
            raise ValueError("a stream event without 'choices'")
        if not choices:
            return ""  # e.g. a usage-only event
        choice = choices[0]
        if not isinstance(choice, Mapping):
            raise ValueError("a stream choice that is not an object")
        if choice.get("finish_reason"):
            self.finish_reason = str(choice["finish_reason"])
        delta = choice.get("delta")
        if delta is None:
            delta = choice.get("message") or {}  # a non-streamed completion
        if not isinstance(delta, Mapping):
            raise ValueError("a stream delta that is not an object")
        for i, part in enumerate(delta.get("tool_calls") or ()):
            self._call_fragment(i, part)
        text = delta.get("content")
        return text if isinstance(text, str) else ""

    def _call_fragment(self, position: int, part: Any) -> None:
        if not isinstance(part, Mapping):
            raise ValueError("a tool-call fragment that is not an object")
        index = part.get("index", position)
        call = self.calls.setdefault(int(index), _CallPart())
        if part.get("id"):
            call.call_id = str(part["id"])
        function = part.get("function") or {}
        if function.get("name"):
            call.name += str(function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, str):
            call.arguments += arguments
        elif isinstance(arguments, Mapping):  # some servers send an object, not a string
            call.arguments += json.dumps(dict(arguments))

    def first_call(self) -> tuple[str, str, str] | None:
        """(call id, name, arguments JSON) of the first tool call, or None."""
        if not self.calls:
            return None
        call = self.calls[min(self.calls)]
        return call.call_id, call.name, call.arguments


# --- tool calls -------------------------------------------------------------------------------


def accept_call(name: str, arguments: str | Mapping[str, Any], candidates: Sequence[ToolSpec],
                user_text: str, *, call_id: str = "", use_words: bool = True
                ) -> ToolCall | None:
    """The call to run, or None when it must not run (the turn is answered in prose).

    Args:
        name: The tool the model called; only one of ``candidates`` is accepted.
        arguments: Its arguments (a JSON object, or its text).
        candidates: The tools offered for this request.
        user_text: The user's request: arguments it spells out are taken from it, and the
            model's own arguments must use only its words.
        call_id: The server's id for the call ('call_1' when it gave none).
        use_words: Take arguments from the user's words when a rule finds them.
    """
    spec = next((t for t in candidates if t.name == name), None)
    if spec is None:
        return None
    call_id = call_id or "call_1"
    said = arguments_from_words(name, user_text) if use_words else None
    if said is not None:
        return ToolCall(name=name, arguments=said, call_id=call_id)
    if isinstance(arguments, str):
        try:
            parsed: Any = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return None
    else:
        parsed = dict(arguments)
    if not isinstance(parsed, dict):
        return None
    try:
        args = validate_args(spec, parsed)
    except AgentError:
        return None
    if not is_grounded(args, user_text):
        return None
    return ToolCall(name=name, arguments=args, call_id=call_id)


def might_be_call(text: str) -> bool:
    """True while ``text`` (the reply so far) could still turn out to be a call written out.

    Such text is held back, never spoken: a JSON object, a ``<tool_call>`` tag or a code
    fence at the start. Prose gives False after its first visible character.
    """
    head = text.lstrip()
    if not head or head.startswith("{"):
        return True
    for opener in (_CALL_TAG, _FENCE):
        if opener.startswith(head[: len(opener)]):
            return True
    return False


_WRAPPERS: Final = re.compile(r"^\s*(?:<tool_call>|```(?:json)?)\s*|\s*(?:</tool_call>|```)\s*$")


def call_in_text(text: str) -> tuple[str, Mapping[str, Any]] | None:
    """(name, arguments) of a call written out as text, or None.

    Reads ``{"name": ..., "arguments": {...}}`` (``"parameters"`` too), bare or in
    ``<tool_call>`` tags or a code fence; the first JSON object when several follow.
    """
    body = _WRAPPERS.sub("", text.strip())
    body = _WRAPPERS.sub("", body)
    try:
        data, _end = json.JSONDecoder().raw_decode(body)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("function"), Mapping):  # {"type": "function", "function": {...}}
        data = dict(data["function"])
    name = data.get("name")
    args = data.get("arguments", data.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except ValueError:
            return None
    if not isinstance(name, str) or not isinstance(args, dict):
        return None
    return name, args


def error_message(body: bytes, limit: int = 300) -> str:
    """The server's own words from an error response body (JSON or text), shortened."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        if error is not None:
            text = str(error)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
