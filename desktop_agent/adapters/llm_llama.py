"""Local LLM with llama-cpp-python: streaming chat with the GGUF's own chat template.

Prefix reuse: one ``Llama`` instance keeps its KV cache between calls, and llama.cpp
re-evaluates only the tokens after the longest common prefix of the previous prompt.
Keeping the system prompt and tool list byte-identical across turns makes that prefix
long, so the first token of turn N+1 costs only the new user words. ``prefill`` goes one
step further: while the user is still speaking, it evaluates the system prompt, the tools
and the whole history up to the header of the next user message, so at the endpoint only
the user's own words are left to evaluate.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from desktop_agent.adapters.offline import import_or_hint
from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import LlmError, ModelError
from desktop_agent.core.ports import ChatMessage, LlmDelta, ToolCall, ToolSpec
from desktop_agent.core.prompts import tool_result_note

_LOGGER = logging.getLogger(__name__)
OPENING_WORDS = 3
"""Words of a reply after which generation gives a core to Piper: the first clause (the
runtime's chunker releases it after at most three words) is then being synthesised, and
Piper on a core of its own takes ~100 ms for it instead of ~240 ms beside two llama.cpp
threads; the rest of the reply still comes faster than it is spoken."""
_TOOL_OPEN = "<tool_call>"
_TOOL_CLOSE = "</tool_call>"


class LlamaLlm:
    """llama-cpp-python behind core.ports.LlmEngine.

    Args:
        model_path: A chat GGUF file (its embedded chat template is used).
        n_threads: Threads for generation and prompt processing (explicit: two cores).
            Once a reply's opening words are out, generation drops to ``n_threads - 1``
            so Piper, synthesising that opening, has a core of its own (see
            ``OPENING_WORDS``); prompt processing keeps them all.
        n_ctx: Context window in tokens.
        temperature: Sampling temperature; low keeps spoken answers on point.
    """

    def __init__(
        self,
        model_path: Path,
        n_threads: int = 2,
        n_ctx: int = 4096,
        temperature: float = 0.2,
        seed: int = 7,
    ) -> None:
        """Load the GGUF. Sampling is re-seeded per call, so a prompt gives one answer."""
        llama_cpp = import_or_hint("llama_cpp", "llama-cpp-python==0.3.36")
        self.model_path = Path(model_path)
        self.temperature = temperature
        self.seed = seed
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(self.model_path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                n_threads_batch=n_threads,
                seed=seed,
                verbose=False,
            )
        except Exception as exc:  # llama.cpp raises ValueError for unreadable files
            raise ModelError(
                "llm_load_failed",
                f"llama.cpp could not load {self.model_path}: {exc}.",
                "Check that the file is a complete chat GGUF (run `desktop-agent doctor`), "
                "or choose another LLM in Settings.",
            ) from exc
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._formatter: Any = None
        self.prefilled_tokens = 0
        """Tokens evaluated by the last ``prefill`` (0: the prefix was already cached)."""

    def warm(self, system_prompt: str, tools: Sequence[ToolSpec] = ()) -> None:
        """Evaluate the system prompt (and tool list) now, so the first turn reuses it.

        Runs on: the LLM worker thread, right after loading.
        """
        for _ in self.stream_chat([ChatMessage("system", system_prompt),
                                   ChatMessage("user", "Hi")], tools=tools, max_tokens=1):
            pass

    def prefill(self, messages: Sequence[ChatMessage], tools: Sequence[ToolSpec] = (),
                user_prefix: str = "") -> int:
        """Evaluate the prompt that ``messages`` + a coming user message will start with.

        The prompt is rendered exactly as ``stream_chat`` renders it (same template, same
        tool list), with a placeholder user message that starts with ``user_prefix`` (a
        partial transcript of what the user is saying); everything before the placeholder
        is evaluated into the KV cache, reusing what is already there. The next
        ``stream_chat`` whose prompt starts the same way then evaluates only the rest of
        the user's words. Returns the number of tokens evaluated now.

        Runs on: the LLM worker thread, while it is idle (the user is speaking).
        """
        marker = "\u2063PREFILL\u2063"
        payload = [_to_openai(m) for m in _tool_results_as_notes(
            [*messages, ChatMessage("user", user_prefix.strip() + marker)])]
        tool_payload = [_tool_to_openai(t) for t in tools] or None
        try:
            rendered = self._chat_formatter()(messages=payload, tools=tool_payload)
        except Exception as exc:  # only a lost optimisation: the turn evaluates it all
            _LOGGER.warning("turn=0 prefill not possible: %s", exc)
            return 0
        text = rendered.prompt
        cut = text.rfind(marker)
        if cut <= 0:
            return 0
        llm = self._llm
        tokens = llm.tokenize(text[:cut].encode("utf-8"),
                              add_bos=not rendered.added_special, special=True)
        cached = 0
        for a, b in zip(llm._input_ids, tokens, strict=False):
            if a != b:
                break
            cached += 1
        # Keep one token back: a prompt that ends exactly here must still be decoded.
        cached = min(cached, len(tokens) - 1)
        todo = tokens[cached:]
        if len(todo) > 1:
            llm.n_tokens = cached
            llm.eval(todo)
            self.prefilled_tokens = len(todo)
        else:
            self.prefilled_tokens = 0
        return self.prefilled_tokens

    def _chat_formatter(self) -> Any:
        """The GGUF's chat template as llama-cpp-python's own handler renders it."""
        if self._formatter is None:
            from llama_cpp import llama_chat_format

            llm = self._llm
            eos_id, bos_id = llm.token_eos(), llm.token_bos()
            eos = llm._model.token_get_text(eos_id) if eos_id != -1 else ""
            bos = llm._model.token_get_text(bos_id) if bos_id != -1 else ""
            self._formatter = llama_chat_format.Jinja2ChatFormatter(
                template=llm.metadata["tokenizer.chat_template"], eos_token=eos,
                bos_token=bos, stop_token_ids=[eos_id])
        return self._formatter

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with this model's tokenizer (for history trimming)."""
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def stream_chat(
        self,
        messages: Sequence[ChatMessage],
        cancel: CancelToken | None = None,
        tools: Sequence[ToolSpec] = (),
        max_tokens: int = 256,
    ) -> Iterator[LlmDelta]:
        """Stream the reply. Runs on: the LLM worker thread.

        Tool calls (Qwen-style JSON, with or without <tool_call> tags) are parsed out of
        the stream and yielded as one LlmDelta(tool_call=...); their text is not spoken.
        """
        payload = [_to_openai(m) for m in _tool_results_as_notes(messages)]
        tool_payload = [_tool_to_openai(t) for t in tools] or None
        parser = _ToolCallParser({t.name for t in tools},
                                 {t.name for t in tools if not _takes_arguments(t)})
        words = 0
        try:
            stream = self._llm.create_chat_completion(
                payload, tools=tool_payload, stream=True, max_tokens=max_tokens,
                temperature=self.temperature, seed=self.seed,
            )
            for chunk in stream:
                if cancel is not None and cancel.cancelled:
                    break
                piece = chunk["choices"][0]["delta"].get("content")
                if piece:
                    for delta in parser.feed(piece):
                        if words < OPENING_WORDS:
                            words += len(delta.text.split())
                            if words >= OPENING_WORDS:
                                self._generation_threads(self.n_threads - 1)
                        yield delta
            else:
                yield from parser.finish()
        except LlmError:
            raise
        except Exception as exc:
            raise LlmError("llm_failed", f"The language model failed: {exc}.",
                           "Try again; if it repeats, run `desktop-agent doctor`.") from exc
        finally:
            if words >= OPENING_WORDS:
                self._generation_threads(self.n_threads)

    def _generation_threads(self, n: int) -> None:
        """Use ``n`` threads for the next generated tokens (prompt processing keeps all)."""
        if n < 1 or self.n_threads < 2:
            return
        try:
            from llama_cpp import llama_set_n_threads

            llama_set_n_threads(self._llm._ctx.ctx, n, self.n_threads)
        except Exception as exc:  # only a lost optimisation
            _LOGGER.debug("turn=0 cannot set llama.cpp threads: %s", exc)


def _tool_results_as_notes(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """Render each tool call + result pair as one system note after the question.

    Small models answer reliably from a plain note, while the chat template's
    tool-response block makes them call the tool again (measured on Qwen2.5-0.5B).
    """
    out: list[ChatMessage] = []
    for msg in messages:
        if msg.role == "assistant" and msg.tool_call is not None and not msg.content:
            continue
        if msg.role == "tool":
            out.append(ChatMessage("system", tool_result_note(msg.name or "tool", msg.content)))
            continue
        out.append(msg)
    return out


def _to_openai(msg: ChatMessage) -> dict[str, Any]:
    if msg.role == "tool":
        return {"role": "tool", "content": msg.content, "name": msg.name or "tool"}
    if msg.tool_call is not None:
        call = msg.tool_call
        return {"role": "assistant", "content": msg.content, "tool_calls": [{
            "id": call.call_id or "call_1", "type": "function",
            "function": {"name": call.name, "arguments": dict(call.arguments)}}]}
    return {"role": msg.role, "content": msg.content}


def _tool_to_openai(tool: ToolSpec) -> dict[str, Any]:
    params = dict(tool.parameters) or {"type": "object", "properties": {}}
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": params}}


def _takes_arguments(tool: ToolSpec) -> bool:
    return bool(dict(tool.parameters).get("properties"))


_CALL_HEAD = re.compile(r'^\s*(?:<tool_call>\s*)?\{\s*"name"\s*:\s*"([^"]+)"')


class _ToolCallParser:
    """Splits a streamed reply into speakable text and tool calls.

    A reply that opens with '{' or '<tool_call>' is held back until it parses as a
    call to a known tool (then it becomes a ToolCall) or proves to be plain text.
    A call to a tool without parameters is complete as soon as its name is out: the
    rest (small models invent arguments) is not worth generating.
    """

    def __init__(self, tool_names: set[str], no_arg_tools: set[str] | None = None) -> None:
        self._names = tool_names
        self._no_args = no_arg_tools or set()
        self._held = ""
        self._mode = "start" if tool_names else "text"
        self._calls = 0

    def feed(self, piece: str) -> Iterator[LlmDelta]:
        if self._mode == "text":
            yield LlmDelta(text=piece)
            return
        self._held += piece
        stripped = self._held.lstrip()
        if self._mode == "start":
            if not stripped:
                return
            if stripped.startswith(("{", "<")) and (
                _TOOL_OPEN.startswith(stripped[: len(_TOOL_OPEN)]) or stripped.startswith("{")
            ):
                self._mode = "call"
            else:
                self._mode = "text"
                text, self._held = self._held, ""
                yield LlmDelta(text=text)
                return
        call = self._try_parse(closed=False)
        if call is not None:
            yield LlmDelta(tool_call=call)

    def finish(self) -> Iterator[LlmDelta]:
        if self._mode == "call" and self._held.strip():
            call = self._try_parse(closed=True)
            if call is not None:
                yield LlmDelta(tool_call=call)
            elif not self._held.lstrip().startswith("{"):
                yield LlmDelta(text=self._held)
            else:
                _LOGGER.info("dropping an unparsable tool call: %r", self._held[:200])
            self._held = ""

    def _try_parse(self, closed: bool) -> ToolCall | None:
        head = _CALL_HEAD.match(self._held)
        if head and head.group(1) in self._no_args:
            return self._call(head.group(1), {})
        body = self._held.strip()
        if body.startswith(_TOOL_OPEN):
            if _TOOL_CLOSE not in body and not closed:
                return None
            body = body[len(_TOOL_OPEN):].split(_TOOL_CLOSE, 1)[0].strip()
        try:
            data = json.loads(body)
        except ValueError:
            return None
        if not isinstance(data, dict) or data.get("name") not in self._names:
            return None
        args = data.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        return self._call(str(data["name"]), args if isinstance(args, dict) else {})

    def _call(self, name: str, args: dict[str, Any]) -> ToolCall:
        self._held = ""
        self._mode = "start"
        self._calls += 1
        return ToolCall(name=name, arguments=args, call_id=f"call_{self._calls}")
