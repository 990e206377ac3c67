"""Fault-injecting proxies around the loaded engines, for ``bench soak``.

Each proxy wraps a worker's engine (``worker.engine``) and passes every call through,
except the first call of its stage after the soak ``arm``-ed a fault for that stage: that
call raises a typed error, hangs past the stage timeout, or returns nothing. A hang waits
on the job's cancel token in slices (as a stuck engine whose job the app gave up on), but
never longer than ``hang_s``: an engine that never returns would block its worker thread
for ever, which no app can recover from short of a restart.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any, Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.errors import AgentError, LlmError, TtsError
from desktop_agent.core.ports import ChatMessage, LlmDelta, SpeechChunk, ToolCall, ToolSpec

ENGINE_FAULTS: Final = ("llm_error", "llm_hang", "llm_empty", "llm_stall", "tts_error",
                        "tts_hang", "tts_empty", "tool_error", "tool_hang")
"""Faults the proxies inject; ``llm_stall`` hangs after the reply's first words."""


class FaultSwitch:
    """The fault armed for the next call of one stage (thread-safe, one shot)."""

    def __init__(self) -> None:
        """Nothing armed."""
        self._lock = threading.Lock()
        self._armed: dict[str, str] = {}
        self.injected: dict[str, int] = {}
        """Fault name -> how many times it was injected."""
        self.hang_s: dict[str, float] = {"llm": 30.0, "tts": 15.0, "tool": 15.0}
        """Longest hang per stage (past its stage timeout)."""

    def arm(self, fault: str) -> None:
        """Arm ``fault`` (one of ENGINE_FAULTS) for its stage's next call."""
        stage = fault.split("_", 1)[0]
        with self._lock:
            self._armed[stage] = fault

    def disarm(self) -> None:
        """Forget every armed fault (the turn is over)."""
        with self._lock:
            self._armed.clear()

    def take(self, stage: str) -> str | None:
        """The fault armed for ``stage`` (now disarmed), or None. Runs on: a worker thread."""
        with self._lock:
            fault = self._armed.pop(stage, None)
            if fault is not None:
                self.injected[fault] = self.injected.get(fault, 0) + 1
            return fault

    def hang(self, stage: str, cancel: CancelToken | None) -> None:
        """Block until ``cancel`` is set, at most ``hang_s[stage]``. Runs on: a worker thread."""
        end = time.monotonic() + self.hang_s[stage]
        while time.monotonic() < end and not (cancel is not None and cancel.cancelled):
            time.sleep(0.05)


class _Proxy:
    """Passes every attribute it does not define through to ``inner``."""

    def __init__(self, inner: Any, switch: FaultSwitch) -> None:
        self.inner = inner
        self.switch = switch

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class FaultyLlm(_Proxy):
    """The LLM, with ``llm_*`` faults on ``stream_chat``."""

    def stream_chat(self, messages: Sequence[ChatMessage], cancel: CancelToken | None = None,
                    tools: Sequence[ToolSpec] = (), max_tokens: int = 256) -> Iterator[LlmDelta]:
        """Stream as the real model does, unless a fault is armed."""
        fault = self.switch.take("llm")
        if fault == "llm_error":
            raise LlmError("llm_injected", "Injected LLM failure (bench soak).")
        if fault == "llm_hang":
            self.switch.hang("llm", cancel)
            return iter(())
        if fault == "llm_empty":
            return iter(())
        stream = self.inner.stream_chat(messages, cancel, tools, max_tokens)
        if fault == "llm_stall":
            return self._stall(stream, cancel)
        return stream  # type: ignore[no-any-return]

    def _stall(self, stream: Iterator[LlmDelta], cancel: CancelToken | None
               ) -> Iterator[LlmDelta]:
        """The first few pieces of the reply, then nothing for a long time."""
        for n, delta in enumerate(stream):
            yield delta
            if n >= 3 and delta.tool_call is None:
                break
        self.switch.hang("llm", cancel)


class FaultyTts(_Proxy):
    """The voice, with ``tts_*`` faults on ``synthesize``."""

    def synthesize(self, text: str, cancel: CancelToken | None = None) -> Iterator[SpeechChunk]:
        """Synthesise as the real voice does, unless a fault is armed."""
        fault = self.switch.take("tts")
        if fault == "tts_error":
            raise TtsError("tts_injected", "Injected TTS failure (bench soak).")
        if fault == "tts_hang":
            self.switch.hang("tts", cancel)
        if fault == "tts_empty":
            return iter(())
        return self.inner.synthesize(text, cancel)  # type: ignore[no-any-return]


class FaultyTools(_Proxy):
    """The tool registry, with ``tool_*`` faults on ``answer`` (a read tool's call)."""

    def answer(self, call: ToolCall) -> tuple[str, bool]:
        """Answer as the registry does, unless a fault is armed."""
        fault = self.switch.take("tool")
        if fault == "tool_error":
            # Past the registry's own guard: as a failing store or a bug in the tool path.
            raise AgentError("tool_injected", "Injected tool failure (bench soak).")
        if fault == "tool_hang":
            self.switch.hang("tool", None)
        return self.inner.answer(call)  # type: ignore[no-any-return]


def install(engines: Any, switch: FaultSwitch) -> None:
    """Wrap the loaded engines of ``engines`` (runtime.worker_link.Engines) in the proxies.

    Runs on: GUI thread, while the workers are idle (an attribute swap the workers read
    at the start of their next job).
    """
    engines.llm.engine = FaultyLlm(engines.llm.engine, switch)
    engines.tts.engine = FaultyTts(engines.tts.engine, switch)
    engines.tool.engine = FaultyTools(engines.tool.engine, switch)
