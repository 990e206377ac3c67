"""A scripted turn in the real window, for screenshots (``desktop-agent gui --screenshot-dir``).

The real runtime and models answer a spoken question injected into a virtual microphone;
the script presses and releases push-to-talk like a person, interrupts the answer, and
saves a PNG of the window in each state.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

QUESTION = "Explain how a car engine works."


def speech(text: str) -> Any:
    """``text`` spoken by the default Piper voice: float32 at 16 kHz."""
    import numpy as np

    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.adapters.tts.tts_piper import PiperTts
    from desktop_agent.audio.resample import resample

    voice = PiperTts(ModelResolver(load_manifest()).resolve("", "tts").path)
    audio = np.concatenate([c.audio for c in voice.synthesize(text)]).astype(np.float32)
    return resample(audio / 32768, voice.sample_rate, 16_000)


def run(out_dir: Path) -> int:
    """Open the real window on a virtual sound card and run the scripted turn in it."""
    from functools import partial

    from desktop_agent.compose.desktop import run_gui

    return run_gui(partial(run_scripted_turn, out_dir=out_dir))


def run_scripted_turn(app: Any, window: Any, runtime: Any, out_dir: Path) -> int:
    """Drive one turn with a barge-in; save PNGs; return 0 when every state was reached."""
    from desktop_agent.core.turns.states import State

    out_dir.mkdir(parents=True, exist_ok=True)
    controller, backend = runtime.controller, runtime.backend

    def pump(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def wait(cond: Any, seconds: float) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if cond():
                return True
            pump(0.02)
        return False

    def shot(name: str) -> None:
        pump(0.15)
        window.grab().save(str(out_dir / f"{name}.png"))
        print(out_dir / f"{name}.png")

    shot("01_loading")
    if not wait(controller.loaded, 180):
        shot("99_load_failed")
        return 1
    shot("02_listening")
    audio = speech(QUESTION)
    window.ptt_button.pressed.emit()
    start = backend.inject(audio)
    wait(lambda: backend.samples > start + len(audio) // 2, 10)
    pump(0.6)
    shot("03_user_speaking")
    wait(lambda: backend.samples > start + len(audio) + 1600, 10)
    window.ptt_button.released.emit()
    pump(0.05)
    shot("04_processing")
    ok = wait(lambda: controller.machine.state is State.ASSISTANT_SPEAKING, 60)
    pump(2.0)
    shot("05_assistant_speaking")
    window.ptt_button.pressed.emit()
    pump(0.3)
    window.ptt_button.released.emit()
    wait(lambda: controller.machine.state is State.LISTENING, 10)
    shot("06_interrupted_heard_panel")
    return 0 if ok else 1
