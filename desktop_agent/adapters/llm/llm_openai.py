"""A chat model on a server that speaks the OpenAI chat-completions API, streamed.

llama.cpp's ``llama-server``, vLLM, or any OpenAI-compatible endpoint can be the speaker,
the reflector or the whole assistant: ``OpenAiLlm`` is a ``core.ports.LlmEngine`` like
``LlamaLlm``. Stdlib only (``http.client``): one connection per reply, streamed as
Server-Sent Events; the wire format and the tool-call rules are ``core.conversation.openai_chat``.

Cancel: checked at every streamed line, and a watcher closes the socket the moment the
token is set, so a cancel is seen even while the server sends nothing (a long prompt, a
stalled server): the blocked read returns at once and the server sees the connection
drop (llama-server then stops generating for it).

Timeouts and errors, each an ``LlmError`` with a stable code and a fix:
``server_unreachable`` (no connection within ``connect_timeout_s``, refused, unknown
host), ``server_timeout`` (connected, but nothing arrived for ``read_timeout_s``),
``server_error`` (an HTTP error status; the message has the status and the server's
words), ``bad_response`` (not a chat-completions stream). A server that is not on this
computer is refused unless ``allow_remote`` (the user set its URL in Settings).

The API key is sent as ``Authorization: Bearer``; it is never logged, never in an error
message, never in ``repr``.
"""

from __future__ import annotations

import http.client
import json
import logging
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from desktop_agent.adapters.llm.openai_http import (
    FIX_TIMEOUT,
    FIX_UNREACHABLE,
    CancelWatch,
    fix_bad,
    read_error,
    status_error,
)
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.conversation.openai_chat import (
    DONE,
    ServerUrl,
    StreamState,
    accept_call,
    call_in_text,
    chat_body,
    might_be_call,
    parse_server_url,
    sse_data,
)
from desktop_agent.core.errors import LlmError
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall, ToolSpec
from desktop_agent.core.tools.claimed import claims_action
from desktop_agent.core.tools.decision import offer_tools
from desktop_agent.core.tools.semantic import MeaningRouter

_LOGGER = logging.getLogger(__name__)

MAX_LINE: Final = 1 << 20
"""Longest stream line read (a chat chunk is a few hundred bytes)."""
CHARS_PER_TOKEN: Final = 3.0
"""``count_tokens``' estimate: no tokenizer here, and history trimming needs an upper
bound more than an exact count (English runs about 4 characters a token)."""


class OpenAiLlm:
    """A streaming chat model behind an OpenAI-compatible HTTP server.

    Args:
        url: The API's base URL, e.g. ``http://127.0.0.1:8080/v1``.
        model: The model name sent with each request ('' leaves it out: llama-server
            serves the one it loaded; vLLM needs it).
        api_key: Sent as a bearer token (None: no Authorization header).
        allow_remote: Allow a server that is not on this computer. The default refuses
            one: only a URL the user set explicitly may leave the machine.
        connect_timeout_s: Seconds to wait for the connection.
        read_timeout_s: Seconds without any byte from the server before the reply fails.
        temperature: Sampling temperature.
        seed: Sent with each request, so a server that honours it gives one answer.
        meanings: Offers tools by meaning when the router's rules offer none
            (``core.tools.semantic``); None: the rules alone.

    Raises:
        LlmError: ``server_url_invalid`` for a malformed URL, ``server_not_local`` for a
            remote server without ``allow_remote``.
    """

    def __init__(self, url: str, model: str = "", api_key: str | None = None, *,
                 allow_remote: bool = False, connect_timeout_s: float = 3.0,
                 read_timeout_s: float = 30.0, temperature: float = 0.2,
                 seed: int | None = 7, meanings: MeaningRouter | None = None) -> None:
        """Check the URL; nothing is sent until the first reply."""
        try:
            self.server: ServerUrl = parse_server_url(url)
        except Exception as exc:  # AgentError from core, re-raised as the LLM's own error
            raise LlmError("server_url_invalid", getattr(exc, "message", str(exc)),
                           getattr(exc, "fix", "")) from None
        if not self.server.loopback and not allow_remote:
            raise LlmError(
                "server_not_local",
                f"The LLM server {self.server.display()} is not on this computer.",
                "A server elsewhere is used only when its URL is set in Settings "
                "(llm.server_url).")
        self.model = model
        self.__api_key = api_key or None
        self.connect_timeout_s = connect_timeout_s
        self.read_timeout_s = read_timeout_s
        self.temperature = temperature
        self.seed = seed
        self.use_words = True
        """Take a tool's arguments from the user's words when they spell them out."""
        self.last_call_text: str | None = None
        """The text of the last call the model wrote out as text (None: there was none)."""
        self.meanings = meanings
        """Tools by meaning when the router's rules offer none (None: rules only)."""

    def __repr__(self) -> str:
        """Where the server is; never the API key."""
        key = "set" if self.__api_key else "none"
        return f"OpenAiLlm({self.server.display()!r}, model={self.model!r}, api_key={key})"

    # --- what the runtime's LLM worker calls besides stream_chat ------------------------------

    def warm(self, system_prompt: str, tools: Sequence[ToolSpec] = ()) -> None:
        """Nothing to load here: the server keeps its own prompt cache.

        Sending a request at start-up would cost the server (maybe shared) a generation and
        make start-up wait on the network. Runs on: the LLM worker thread.
        """

    def prefill(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = (),
                user_prefix: str = "") -> int:
        """Nothing is evaluated ahead (the server caches the prompt it saw last): 0."""
        return 0

    def count_tokens(self, text: str) -> int:
        """An upper estimate of ``text``'s tokens (no tokenizer on this side)."""
        return math.ceil(len(text) / CHARS_PER_TOKEN)

    # --- the reply ------------------------------------------------------------------------------

    def complete_json(self, messages: Sequence[ChatMessage], schema: Mapping[str, Any],
                      cancel: CancelToken | None = None, max_tokens: int = 128) -> str:
        """The server's answer in the shape of ``schema`` (greedy), as text ('' if cancelled).

        For a structured role such as the reflector's verdict. Runs on: a worker thread.
        """
        return "".join(self._stream(messages, (), max_tokens, cancel, json_schema=schema,
                                    temperature=0.0))

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        cancel: CancelToken | None = None,
        tools: Sequence[ToolSpec] = (),
        max_tokens: int = 256,
    ) -> Iterator[LlmDelta]:
        """Stream the reply: speakable text, or one ``LlmDelta(tool_call=...)``.

        Only the tools ``core.tools.decision.offer_tools`` finds for the newest user
        message are offered (none for a run that answers a tool's result): the rules'
        candidates, or when they find none, the tool nearest by meaning; the server's model
        decides on every call, with "no call" always open to it. A call the server
        returns is checked as the local path checks it
        (``core.conversation.openai_chat.accept_call``); a refused call, or text that looked
        like a call but was none, ends in a plain run without tools.
        Runs on: the LLM worker thread.
        """
        self.last_call_text = None
        offered = offer_tools(messages, tools, self.meanings).tools
        user = messages[-1].content if offered else ""
        if not offered:
            yield from self._texts(self._stream(messages, (), max_tokens, cancel))
            return
        spoke = claim = False
        held = ""
        state = StreamState()
        for piece in self._stream(messages, offered, max_tokens, cancel, state):
            if spoke:
                yield LlmDelta(text=piece)
                continue
            held += piece
            if claim or might_be_call(held) or not _sentence_seen(held):
                continue
            if claims_action(held, user):
                # "Sure, I'll set the volume to 30 percent." and then the call: a server
                # may stream the words before the call. Held until the stream says whether
                # a call comes; without one, the turn machine refuses the claim.
                claim = True
                continue
            spoke = True
            yield LlmDelta(text=held)
        if cancel is not None and cancel.cancelled:
            return
        call = self._call(state, held if not (spoke or claim) else "", offered, user)
        if call is not None:
            yield LlmDelta(tool_call=call)
        elif claim or (held and not might_be_call(held) and not spoke):
            yield LlmDelta(text=held)
        elif not spoke:
            # No usable call and nothing said (the model wrote {"name": "none"}, called a
            # tool it was not offered, or invented an argument): answer in prose.
            yield from self._texts(self._stream(messages, (), max_tokens, cancel))

    def _call(self, state: StreamState, held: str, offered: Sequence[ToolSpec],
              user: str) -> ToolCall | None:
        first = state.first_call()
        if first is not None:
            call_id, name, arguments = first
            call = accept_call(name, arguments, offered, user, call_id=call_id,
                               use_words=self.use_words)
            if call is None:
                _LOGGER.info("turn=0 dropping the server's call to %r (not offered, bad or "
                             "invented arguments)", name)
            return call
        if not held.strip():
            return None
        self.last_call_text = held
        written = call_in_text(held)
        if written is None:
            return None
        return accept_call(written[0], written[1], offered, user, use_words=self.use_words)

    @staticmethod
    def _texts(pieces: Iterator[str]) -> Iterator[LlmDelta]:
        for piece in pieces:
            yield LlmDelta(text=piece)

    def _stream(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec],
                max_tokens: int, cancel: CancelToken | None,
                state: StreamState | None = None, *,
                json_schema: Mapping[str, Any] | None = None,
                temperature: float | None = None) -> Iterator[str]:
        """The text pieces of one streamed completion (tool-call fragments go to ``state``).

        The connection is closed when the stream ends, fails, is cancelled, or the caller
        stops iterating.
        """
        state = state if state is not None else StreamState()
        body = json.dumps(chat_body(
            messages, model=self.model, tools=tools, max_tokens=max_tokens,
            temperature=self.temperature if temperature is None else temperature,
            seed=self.seed, json_schema=json_schema)).encode("utf-8")
        if cancel is not None and cancel.cancelled:
            return
        conn = self._connect()
        watch = CancelWatch(cancel, conn)
        try:
            response = self._post(conn, body, cancel)
            if response is None:
                return
            yield from self._events(response, state, cancel)
        finally:
            watch.stop()
            conn.close()

    def _connect(self) -> http.client.HTTPConnection:
        server = self.server
        cls = (http.client.HTTPSConnection if server.scheme == "https"
               else http.client.HTTPConnection)
        conn = cls(server.host, server.port, timeout=self.connect_timeout_s)
        try:
            conn.connect()
        except TimeoutError:
            conn.close()
            raise LlmError("server_unreachable",
                           f"The LLM server {server.display()} did not accept a connection "
                           f"within {self.connect_timeout_s:g} s.", FIX_UNREACHABLE) from None
        except OSError as exc:  # refused, unknown host, no route, TLS failure
            conn.close()
            why = exc.strerror or str(exc)[:200] or exc.__class__.__name__
            raise LlmError("server_unreachable",
                           f"Cannot reach the LLM server {server.display()} ({why}).",
                           FIX_UNREACHABLE) from None
        if conn.sock is not None:
            conn.sock.settimeout(self.read_timeout_s)
        return conn

    def _post(self, conn: http.client.HTTPConnection, body: bytes,
              cancel: CancelToken | None) -> http.client.HTTPResponse | None:
        """Send the request and read the status; None when cancelled meanwhile."""
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream"}
        if self.__api_key:
            headers["Authorization"] = f"Bearer {self.__api_key}"
        try:
            conn.request("POST", self.server.chat_path, body=body, headers=headers)
            response = conn.getresponse()
        except (TimeoutError, OSError, http.client.HTTPException) as exc:
            if cancel is not None and cancel.cancelled:
                return None
            raise read_error(exc, self.server, self.read_timeout_s) from None
        if response.status != 200:
            raise status_error(response)
        return response

    def _events(self, response: http.client.HTTPResponse, state: StreamState,
                cancel: CancelToken | None) -> Iterator[str]:
        kind = response.getheader("Content-Type", "")
        if "text/event-stream" not in kind:
            yield from self._whole(response, state, kind)
            return
        while True:
            if cancel is not None and cancel.cancelled:
                return
            try:
                raw = response.readline(MAX_LINE)
            except (TimeoutError, OSError, http.client.HTTPException) as exc:
                if (cancel is not None and cancel.cancelled) or state.finish_reason is not None:
                    return  # cancelled, or the reply was complete (a server that never closed)
                raise read_error(exc, self.server, self.read_timeout_s) from None
            if cancel is not None and cancel.cancelled:
                return
            if not raw:
                if state.finish_reason is None and not state.calls:
                    raise LlmError("bad_response", "The LLM server closed the stream before "
                                   "the reply ended.", FIX_TIMEOUT)
                return
            data = sse_data(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
            if data is None:
                continue
            if data.strip() == DONE:
                return
            try:
                text = state.feed(json.loads(data))
            except ValueError as exc:
                raise LlmError("bad_response", f"The LLM server sent something that is not "
                               f"a chat reply: {exc}.", fix_bad(self.server)) from None
            if text:
                yield text

    def _whole(self, response: http.client.HTTPResponse, state: StreamState,
               kind: str) -> Iterator[str]:
        """A server that answered the streamed request in one JSON body."""
        try:
            data = json.loads(response.read(MAX_LINE))
            text = state.feed(data)
        except (TimeoutError, OSError, http.client.HTTPException) as exc:
            raise read_error(exc, self.server, self.read_timeout_s) from None
        except (ValueError, AttributeError) as exc:
            raise LlmError("bad_response", f"The LLM server answered with {kind or 'no type'}"
                           f", not a chat reply ({exc}).", fix_bad(self.server)) from None
        if text:
            yield text



_SENTENCE_WORDS = 12
"""Words after which held text is judged even without a sentence's end."""


def _sentence_seen(text: str) -> bool:
    """Whether ``text`` holds a whole sentence (or enough words) to judge what it says."""
    return any(mark in text for mark in ".!?") or len(text.split()) >= _SENTENCE_WORDS
