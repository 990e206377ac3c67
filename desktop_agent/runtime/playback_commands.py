"""Playback commands of the turn machine: play a chunk, flush, duck, resume, apologise.

A mixin of AgentController (split out to keep the controller readable): it uses the
controller's backend, monitor, feeder, engines, tokens and signals.

Runs on: GUI thread.
"""

from __future__ import annotations

from typing import Any

from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns.policy import PAUSE_GAIN_DB
from desktop_agent.runtime.workers import TtsJob


class PlaybackCommands:
    """What the machine asks of the speaker, and the synthesized audio waiting for it."""

    backend: Any
    monitor: Any
    feeder: Any
    engines: Any
    sig_caption: Any
    sig_assistant_text: Any
    _audio: dict[tuple[TurnId, int], Any]
    _assistant_text: dict[int, str]

    def _token(self, job: int, turn_id: TurnId) -> CancelToken:  # provided by the controller
        raise NotImplementedError

    def _cancel(self, job: int, reason: str) -> None:  # provided by the controller
        raise NotImplementedError

    def _on_tts_sig_result(self, result: tuple[TtsJob, Any]) -> None:
        job, chunk = result
        if chunk is not None and job.chunk_index >= 0 and not job.cancel.cancelled:
            self._audio[(job.turn_id, job.chunk_index)] = chunk

    def _cmd_PlayChunk(self, c: cmd.PlayChunk) -> None:
        chunk = self._audio.pop((c.turn_id, c.chunk_index), None)
        if chunk is None:
            return
        token = self._token(c.job, c.turn_id)
        self.monitor.add(c.turn_id, c.job, chunk.n_samples, token)
        self.feeder.play(self.monitor.key(c.job), chunk.audio, chunk.sample_rate, token)
        self.sig_caption.emit(chunk.text)
        text = self._assistant_text.get(c.turn_id, "")
        self._assistant_text[c.turn_id] = (text + " " + chunk.text).strip()
        self.sig_assistant_text.emit(int(c.turn_id), self._assistant_text[c.turn_id])

    def _cmd_FlushPlayback(self, c: cmd.FlushPlayback) -> None:
        self._cancel(c.job, "flushed")
        self.monitor.flush(c.job)
        self.backend.player.restore()  # the flushed reply is dropped; the next one plays

    def _cmd_DuckPlayback(self, c: cmd.DuckPlayback) -> None:
        if c.gain_db <= PAUSE_GAIN_DB:
            self.backend.player.pause()  # hold the place: resumed or flushed by the verdict
        else:
            self.backend.player.duck(10 ** (c.gain_db / 20))

    def _cmd_ResumePlayback(self, c: cmd.ResumePlayback) -> None:
        self.backend.player.restore()

    def _cmd_SpeakApology(self, c: cmd.SpeakApology) -> None:
        self.sig_caption.emit(c.text)
        self.monitor.speak_apology(c.turn_id, c.text, self.engines.tts, self.feeder)

    def _cmd_StopApology(self, c: cmd.StopApology) -> None:
        self.monitor.stop_apology()
