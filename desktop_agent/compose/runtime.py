"""The runtime, composed: engines (adapters) in workers (runtime) around a controller.

``build_runtime`` wires engines into workers around a controller and an audio backend; the
desktop app, the turn benchmark and the end-to-end tests all use it, so they exercise
exactly the same pipeline.
"""

from __future__ import annotations

import datetime
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_agent.core.settings import Settings
from desktop_agent.core.turns.telemetry import TurnSpan

if TYPE_CHECKING:
    from PySide6.QtCore import QThread

    from desktop_agent.audio.backend import AudioBackend
    from desktop_agent.compose.knowledge import Indexing
    from desktop_agent.core.mcp.config import McpConfig
    from desktop_agent.core.turns.policy import TurnPolicy
    from desktop_agent.runtime.controller import AgentController

_LOGGER = logging.getLogger(__name__)


@dataclass
class Runtime:
    """Everything ``build_runtime`` made; ``shutdown`` stops it in phases."""

    controller: AgentController
    backend: Any
    """The AudioBackend (Any: tests and benches also use VirtualAudio's ``inject``)."""
    threads: list[QThread]
    indexing: Indexing | None = None
    """Background indexing of the knowledge folders (None in tests that build no store)."""
    own_tools: Any = None
    """Your own tools' servers (``compose.mcp.AppTools``; None: none configured)."""

    def shutdown(self) -> None:
        """Input, processing, output."""
        from desktop_agent.adapters.desktop.x11_typing import close_portal_keyboards

        if self.indexing is not None:
            self.indexing.stop()
        close_portal_keyboards()  # first: a typing run may be waiting on the desktop's dialog
        self.controller.shutdown()
        if self.own_tools is not None:
            self.own_tools.close()


SPAN_LOG_MAX_BYTES = 1_000_000
"""Past this size the span log starts again; the previous one is kept as ``<name>.1``."""


def jsonl_span_sink(path: Path, max_bytes: int = SPAN_LOG_MAX_BYTES
                    ) -> Callable[[TurnSpan], None]:
    """Append each finished turn's span (times only, no words) as one JSON line to ``path``.

    The log is bounded: past ``max_bytes`` it is renamed ``<name>.1`` (replacing the one
    before) and a new one starts, so at most about twice ``max_bytes`` stay on disk.
    """
    def sink(span: TurnSpan) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_file() and path.stat().st_size >= max_bytes:
            path.replace(path.with_name(path.name + ".1"))
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(span.to_json()) + "\n")
    return sink


def build_runtime(settings: Settings, backend: AudioBackend | None = None, *,
                  echo_cancellation: bool | None = None, policy: TurnPolicy | None = None,
                  span_log: Path | None = None, store_path: Path | None = None,
                  mcp: McpConfig | None = None) -> Runtime:
    """Resolve models, start one worker thread per engine, and build the controller.

    The workers load their engines on their own threads (progress arrives as
    ``sig_loading``); VAD and AEC are loaded here because capture needs them at once.
    ``store_path`` is the SQLite store of notes, timers, reminders and executed actions
    (default: ``assistant.sqlite3`` in the user data dir). ``mcp``: your own tools' servers,
    started in the background once the rest is built (``compose.mcp.AppTools``).
    """
    from desktop_agent.adapters.desktop.desktop_desk import DesktopDesk
    from desktop_agent.adapters.desktop.desktop_tools import LastReply, add_desktop_tools
    from desktop_agent.adapters.heap_trim import trimmer
    from desktop_agent.adapters.listening.speex import SpeexEchoCanceller
    from desktop_agent.adapters.listening.turn_smart import load_turn_detector
    from desktop_agent.adapters.listening.vad_silero import SileroVad
    from desktop_agent.adapters.store.store_sqlite import default_store_path
    from desktop_agent.adapters.store.tools_builtin import builtin_tools
    from desktop_agent.adapters.store.write_desk import StoreDesk
    from desktop_agent.audio.capture import CapturePipeline
    from desktop_agent.compose.controller import build_controller
    from desktop_agent.compose.engines import THREADS_ASR, THREADS_LLM, THREADS_TTS, resolve_models
    from desktop_agent.compose.knowledge import (
        Indexing,
        KnowledgeFolders,
        passage_lookup,
        with_knowledge,
    )
    from desktop_agent.compose.ledger import StoreLedger, open_store
    from desktop_agent.compose.llm_backend import llm_roles, make_llm
    from desktop_agent.compose.speech_engines import make_asr, make_tts
    from desktop_agent.compose.tool_meanings import tool_meanings
    from desktop_agent.core.conversation.prompts import dated_system_prompt
    from desktop_agent.core.errors import AgentError
    from desktop_agent.core.listening.endpointing import is_hallucination
    from desktop_agent.runtime.llm_worker import LlmWorker
    from desktop_agent.runtime.view_api import ErrorNotice
    from desktop_agent.runtime.worker_link import Engines
    from desktop_agent.runtime.workers import AsrWorker, ToolWorker, TtsWorker, start_worker

    models = resolve_models(settings, llm_roles(settings, ("asr", "llm", "tts", "vad")))
    store, store_note = open_store(store_path or default_store_path())  # never raises
    last_reply = LastReply()  # "copy that": bound to the history below
    tools = add_desktop_tools(builtin_tools(store), last_answer=last_reply)  # the real desktop
    notices: list[Callable[[AgentError], None]] = []  # the controller's, once it exists

    def notify(error: AgentError) -> None:  # from a worker thread: a queued signal emit
        for emit in notices:
            emit(error)

    asr = AsrWorker(lambda: make_asr(settings, models["asr"].path, THREADS_ASR, notify),
                    is_hallucination)
    folders = KnowledgeFolders(settings.knowledge_folders)
    local_llm = models["llm"].path if "llm" in models else None  # None: a server answers
    speaker = models["speaker"].path if "speaker" in models else None  # None: llm speaks
    llm = LlmWorker(lambda: with_knowledge(make_llm(settings, local_llm, THREADS_LLM,
                                                    meanings=tool_meanings(),
                                                    speaker_path=speaker),
                                           store, folders,
                                           proposer=settings.knowledge.proposer), tools,
                    dated_system_prompt(datetime.datetime.now().astimezone()))
    from desktop_agent.compose.reflection import grammar_writer_for, verdict_judge_for

    llm.judge_factory = verdict_judge_for  # the model reflector (reflection 'on')
    llm.writer_factory = grammar_writer_for  # word problems, sentences under a grammar
    tts = TtsWorker(lambda: make_tts(settings, models["tts"].path, THREADS_TTS, notify))
    from desktop_agent.compose.mcp import AppTools, RoutingDesk
    from desktop_agent.core.tools.specs import WRITE_TOOLS

    desk = RoutingDesk(DesktopDesk(StoreDesk(store), log=store), None)  # + your own, listed
    write_names = set(WRITE_TOOLS)
    tool_limits: dict[str, float] = {}  # your own tools' limits, once listed
    tool = ToolWorker(tools, desk)
    if backend is None:
        backend = _device_backend(settings)
    aec_on = settings.audio.echo_cancellation if echo_cancellation is None else echo_cancellation
    pipeline = CapturePipeline(SileroVad(models["vad"].path),
                               SpeexEchoCanceller() if aec_on else None,
                               turn_detector=load_turn_detector())
    engines = Engines(asr=asr, llm=llm, tts=tts, tool=tool)
    sink = jsonl_span_sink(span_log) if span_log is not None else None
    controller = build_controller(engines=engines, backend=backend, pipeline=pipeline,
                                  settings=settings, policy=policy, span_sink=sink,
                                  ledger=StoreLedger(store, time.time),
                                  write_tools=write_names, tool_limits_s=tool_limits)
    notices.append(lambda error: controller.sig_error.emit(ErrorNotice.from_error(error)))
    from desktop_agent.compose.kept_history import keep_history
    from desktop_agent.runtime.history_keeper import HistoryKeeper

    history = controller.machine.history
    last_reply.bind(history)
    controller.history_keeper = HistoryKeeper(
        keep_history(store, settings, history, purge=False), history.clear,
        controller.sig_error.emit, parent=controller)
    controller.passage_lookup = passage_lookup()
    from desktop_agent.runtime.heap_keeper import HeapKeeper

    if (trim := trimmer()) is not None:  # freed engine buffers go back after each turn
        controller.heap_keeper = HeapKeeper(trim, parent=controller)
        controller.sig_state_changed.connect(controller.heap_keeper.on_state)
    _dictation(controller)
    if store_note:
        controller.notices_at_start.append(ErrorNotice("store_rebuilt", store_note))
    for warning in mcp.warnings if mcp is not None else ():  # a broken mcp.json, with its line
        controller.notices_at_start.append(ErrorNotice("mcp_config", warning))
    # Start the workers only now that the controller listens: a "ready" reported before its
    # signals were connected would be lost, and the app would wait for it for ever.
    engines.threads += [start_worker(w, n) for w, n in ((asr, "asr"), (llm, "llm"),
                                                        (tts, "tts"), (tool, "tool"))]
    indexing = Indexing(store, folders)
    indexing.follow(settings.knowledge_folders)
    own_tools = None
    if mcp is not None and mcp.enabled:  # nothing imported or started otherwise
        own_tools = AppTools(mcp, tools, desk, write_names, store, tool_limits=tool_limits)
        own_tools.start()  # returns at once; the tools join when the servers list them
    return Runtime(controller, backend, engines.threads, indexing, own_tools)


def _dictation(controller: Any) -> None:
    """Dictation into the focused window, on the controller's own turns (runtime/dictation.py).

    Runs on: GUI thread.
    """
    from desktop_agent.adapters.desktop.clipboard_xclip import XclipClipboard
    from desktop_agent.adapters.desktop.x11_typing import DesktopTypist
    from desktop_agent.runtime.dictation import Dictation, DictationHost

    machine = controller.machine
    host = DictationHost(press=controller.ptt_press, release=controller.ptt_release,
                         cue=controller.play_cue, cancel=controller.cancel_turn,
                         state=lambda: machine.state, turn_id=lambda: int(machine.turn_id))
    controller.dictation = Dictation(host, DesktopTypist(), XclipClipboard().copy)
    controller.dictation.sig_status.connect(controller.sig_dictation.emit)


def _device_backend(settings: Settings) -> AudioBackend:
    from desktop_agent.adapters.audio.device_audio import DeviceAudio

    return DeviceAudio(settings.audio.input_device, settings.audio.output_device)
