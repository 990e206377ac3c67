"""Shared fixtures: the real default models (resolved once per session)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.needs import REQUIRE_ALL, required, unavailable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The apps the tests start must not find (and raise) an app the developer is running, nor
# each other across test runs side by side: their control socket lives in a folder of
# this run's own (docs/anywhere.md). Tests of the folder rule pass their own environment.
if "DESKTOP_AGENT_RUNTIME_DIR" not in os.environ:
    import tempfile

    os.environ["DESKTOP_AGENT_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="da-test-run-")


def _need(what: str, exc: BaseException) -> None:
    """Skip when a model is absent locally; fail in CI, where setup.sh installed them."""
    unavailable(what, str(exc))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "skip_ok: a skip that no install cures (allowed under "
        "DESKTOP_AGENT_REQUIRE_ALL=1)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Under DESKTOP_AGENT_REQUIRE_ALL=1 a skip is a failure (tests/needs.py says why)."""
    outcome = yield
    report = outcome.get_result()
    if (report.skipped and required() and not hasattr(report, "wasxfail")
            and item.get_closest_marker("skip_ok") is None):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        reason = str(reason).removeprefix("Skipped: ")
        report.outcome = "failed"
        report.longrepr = (f"skipped, but {REQUIRE_ALL}=1 (CI) allows no skip: {reason}. "
                           "Install what it needs (scripts/setup.sh test), or mark the test "
                           "skip_ok if no install can cure it.")


@pytest.fixture(scope="session")
def models() -> dict[str, Any]:
    """The default models, resolved (assembled and verified) through the real resolver."""
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.core.errors import ModelError

    resolver = ModelResolver(load_manifest())
    try:
        return {role: resolver.resolve("", role) for role in ("asr", "llm", "tts", "vad")}
    except ModelError as exc:
        _need("the default models", exc)
        raise


@pytest.fixture(scope="session")
def tts(models: dict[str, Any]) -> Any:
    from desktop_agent.adapters.tts.tts_piper import PiperTts

    return PiperTts(models["tts"].path, threads=1, deterministic=True)


@pytest.fixture(scope="session")
def asr(models: dict[str, Any]) -> Any:
    from desktop_agent.adapters.asr.asr_whisper import WhisperAsr

    return WhisperAsr(models["asr"].path, cpu_threads=2)


@pytest.fixture(scope="session")
def llm(models: dict[str, Any]) -> Any:
    from desktop_agent.adapters.llm.llm_llama import LlamaLlm

    return LlamaLlm(models["llm"].path, n_threads=2, n_ctx=2048)


@pytest.fixture(scope="session")
def speak(tts: Any) -> Any:
    """speak(text) -> float32 16 kHz mono audio of the default voice saying ``text``."""
    import numpy as np

    from desktop_agent.audio.resample import resample

    cache: dict[str, Any] = {}

    def _speak(text: str) -> Any:
        if text not in cache:
            audio = np.concatenate([c.audio for c in tts.synthesize(text)])
            cache[text] = resample(audio.astype(np.float32) / 32768, tts.sample_rate, 16_000)
        return cache[text]

    return _speak


@pytest.fixture(scope="session")
def pulse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A private PulseAudio daemon with virtual devices (see tests/audio/pulse.py).

    Yields its PULSE_SERVER; skips with the reason when PulseAudio cannot start.
    """
    from tests.audio.pulse import start_pulse

    yield from start_pulse(tmp_path_factory)


@pytest.fixture(autouse=True)
def _default_sink_level_kept(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test on the suite's PulseAudio that turns the default sink down (the volume tools
    do) gives the level back: the echo and flush tests after it measure against unity."""
    if "pulse_server" not in request.fixturenames:
        yield
        return
    import re

    from tests.audio.pulse import pactl

    def level() -> tuple[str, str]:
        volume = pactl("get-sink-volume", "@DEFAULT_SINK@", check=False)
        found = re.search(r"(\d+)%", volume)
        return (found.group(1) + "%" if found else "100%",
                "1" if "yes" in pactl("get-sink-mute", "@DEFAULT_SINK@", check=False) else "0")

    before = level()
    yield
    if level() != before:
        pactl("set-sink-volume", "@DEFAULT_SINK@", before[0], check=False)
        pactl("set-sink-mute", "@DEFAULT_SINK@", before[1], check=False)


@pytest.fixture(autouse=True)
def _qt_garbage_freed_here(request: pytest.FixtureRequest) -> Iterator[None]:
    """After a test with Qt objects, a garbage collection on this (the GUI) thread: a
    controller or widget held only by reference cycles is otherwise freed by whichever
    thread's allocation triggers the next collection, and a QObject destroyed off its
    thread with a queued call or a timer still pending crashes a later test's event loop."""
    yield
    if {"qtbot", "qapp"} & set(request.fixturenames):
        import gc

        gc.collect()  # about 0.1 s a test with models loaded
