"""The speaker side of the runtime: what the machine asks of playback, and the asides.

``PlaybackDriver`` owns the synthesized audio waiting to be played (keyed by turn and chunk,
never older than the previous turn), the ``PlaybackFeeder`` that moves it into the Player,
the ``PlaybackMonitor`` that reports what the device consumed, the player controls the
machine uses (flush, pause or duck, restore), and the spoken asides that are not part of a
reply: the apology of a failed turn, a repeated answer, the speaker test. An aside plays on
a Player key of its own; only an apology reports ``ApologyFinished`` to the machine.

Runs on: GUI thread (everything in this module).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from desktop_agent.audio.chime import CueKind, chime, listening_cue
from desktop_agent.audio.player import Player
from desktop_agent.core.cancel import NO_TURN, CancelToken, TurnId
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.policy import PAUSE_GAIN_DB
from desktop_agent.core.turns.states import JobId
from desktop_agent.runtime.audio_workers import PlaybackFeeder
from desktop_agent.runtime.controller_ports import Feed, TokenFor
from desktop_agent.runtime.payloads import AsideJob, SpokenAside, SynthesizedChunk
from desktop_agent.runtime.playback_monitor import PlaybackMonitor, new_keys
from desktop_agent.runtime.workers import TtsWorker

_LOGGER = logging.getLogger(__name__)
_ASIDE_POLL_MS = 10


@dataclass
class _Aside:
    turn_id: TurnId
    key: TurnId
    """The Player key it plays on."""
    token: CancelToken
    apology: bool
    """True for the apology of a failed turn: the machine waits for ApologyFinished."""
    chime: bool = False
    """Play the chime before the words (a timer or a reminder)."""
    queued: bool = False
    """Its audio went to the feeder (the key's end is watched from then on)."""


class PlaybackDriver(QObject):
    """Plays reply chunks and asides; pauses, ducks, restores and flushes the player.

    Args:
        player: The backend's Player.
        feed: The controller's single entry into the machine.
        token: The cancel token of a job (the controller's job table).
        cancel: Cancels a job (the controller's job table).
        tts: The TTS worker (asides are synthesized there, outside the machine).
        show_caption: Emits the caption of what is being said now.
        show_reply: Emits ``(turn_id, text_so_far)`` of the reply being spoken.
        parent: The owning QObject.
    """

    sig_aside_requested = Signal(object)
    """AsideJob: queued to the TTS worker's ``speak_aside``."""

    def __init__(self, player: Player, *, feed: Feed, token: TokenFor,
                 cancel: Callable[[JobId, str], None], tts: TtsWorker,
                 show_caption: Callable[[str], None], show_reply: Callable[[int, str], None],
                 parent: QObject | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self._player = player
        self._feed = feed
        self._token = token
        self._cancel = cancel
        self._show_caption = show_caption
        self._show_reply = show_reply
        self._new_key = new_keys()
        self.feeder = PlaybackFeeder(player)
        self.monitor = PlaybackMonitor(player, feed, self, feeder=self.feeder,
                                       new_key=self._new_key)
        self._audio: dict[tuple[TurnId, int], SynthesizedChunk] = {}
        self._reply: tuple[TurnId, str] = (NO_TURN, "")
        self._aside: _Aside | None = None
        self._aside_timer = QTimer(self)
        self._aside_timer.setInterval(_ASIDE_POLL_MS)
        self._aside_timer.timeout.connect(self._on_aside_timer_timeout)
        # Queued both ways: the worker lives on the TTS thread, this object on the GUI thread.
        self.sig_aside_requested.connect(tts.speak_aside)
        tts.sig_aside_synthesized.connect(self._on_tts_sig_aside_synthesized)

    def start(self) -> None:
        """Start watching playback."""
        self.monitor.start()

    def close(self) -> None:
        """Stop watching and end the feeder thread (shutdown, output phase)."""
        self.monitor.stop()
        self._aside_timer.stop()
        self.feeder.close()

    def first_audio_s(self) -> float | None:
        """When the current reply's first sample was played (None if not yet)."""
        return self.monitor.first_audio_s()

    def reply_text(self, turn_id: TurnId) -> str:
        """The text of turn ``turn_id``'s reply handed to the speaker so far."""
        turn, text = self._reply
        return text if turn == turn_id else ""

    def forget(self, turn_id: TurnId) -> None:
        """Turn ``turn_id`` is over: drop its drained streams (and older ones)."""
        self.monitor.forget(turn_id)

    # --- reply chunks ----------------------------------------------------------------------------

    def keep(self, chunk: SynthesizedChunk) -> None:
        """Hold ``chunk``'s audio until the machine asks to play it (``PlayChunk``)."""
        ready = chunk.ready
        if chunk.audio is None or chunk.cancel.cancelled:
            return
        for key in [k for k in self._audio if k[0] < ready.turn_id]:
            del self._audio[key]  # an older turn's audio is never played any more
        self._audio[(ready.turn_id, ready.chunk_index)] = chunk

    def play(self, c: cmd.PlayChunk) -> None:
        """Queue chunk ``c.chunk_index`` on the stream ``c.job`` (nothing if it has no audio)."""
        chunk = self._audio.pop((c.turn_id, c.chunk_index), None)
        if chunk is None or chunk.audio is None:
            return
        ready = chunk.ready
        token = self._token(c.job, c.turn_id)
        self.monitor.add(c.turn_id, c.job, ready.n_samples, token)
        self.feeder.play(self.monitor.key(c.job), chunk.audio, ready.sample_rate, token)
        self._show_caption(ready.text)
        text = (self.reply_text(c.turn_id) + " " + ready.text).strip()
        self._reply = (c.turn_id, text)
        self._show_reply(int(c.turn_id), text)

    def flush(self, c: cmd.FlushPlayback) -> None:
        """Silence the stream now; the monitor answers with PlaybackStopped."""
        self._cancel(c.job, "flushed")
        self.monitor.flush(c.job)
        self._player.restore()  # the flushed reply is dropped; the next one plays

    def duck(self, c: cmd.DuckPlayback) -> None:
        """Pause (hold the place) or lower the reply while a barge-in is judged."""
        if c.gain_db <= PAUSE_GAIN_DB:
            self._player.pause()  # resumed or flushed by the verdict
        else:
            self._player.duck(10 ** (c.gain_db / 20))

    def restore(self, c: cmd.ResumePlayback | None = None) -> None:
        """Undo pause and duck: full level again."""
        self._player.restore()

    # --- asides ----------------------------------------------------------------------------------

    def play_cue(self, kind: CueKind) -> None:
        """Play the soft cue that listening started or stopped, on a Player key of its own.

        Through the player like any voice, so the echo reference has it. Any reply still
        queued was flushed by the press that started listening; the next reply's key is
        newer and plays after it.
        """
        rate = self._player.device_rate
        key, token = self._new_key(), CancelToken(NO_TURN)
        self.feeder.play(key, listening_cue(kind, rate), rate, token)
        self.feeder.end(key, token)

    def speak_apology(self, c: cmd.SpeakApology) -> None:
        """Say the apology of a failed turn; ApologyFinished follows in any case."""
        self._show_caption(c.text)
        self._speak(c.turn_id, c.text, apology=True)

    def stop_apology(self, c: cmd.StopApology) -> None:
        """Cut the apology short (the user pressed to talk)."""
        self.stop_aside()

    def speak_aside(self, turn_id: TurnId, text: str, *, chime: bool = False) -> None:
        """Say ``text`` outside any reply (a repeated answer, the speaker test, an alarm).

        ``chime``: play the two-note chime before the words.
        """
        self._speak(turn_id, text, apology=False, chime=chime)

    def stop_aside(self) -> None:
        """Cut the aside that is playing, if any."""
        aside, self._aside = self._aside, None
        self._aside_timer.stop()
        if aside is not None:
            aside.token.cancel("aside cut")
            self._player.flush(aside.key)

    def _speak(self, turn_id: TurnId, text: str, *, apology: bool, chime: bool = False) -> None:
        token = CancelToken(turn_id)
        self._aside = _Aside(turn_id, self._new_key(), token, apology, chime)
        self.sig_aside_requested.emit(AsideJob(turn_id, text, token))

    def _on_tts_sig_aside_synthesized(self, spoken: SpokenAside) -> None:
        aside = self._aside
        if aside is None or spoken.job.cancel is not aside.token:
            return  # cut, or replaced by a newer aside
        if spoken.chunk is None:  # the voice itself failed: nothing to wait for
            self._finished(aside)
            return
        aside.queued = True
        audio, rate = spoken.chunk.audio, spoken.chunk.sample_rate
        if aside.chime:
            audio = np.concatenate([chime(rate), np.asarray(audio, dtype=np.int16)])
        self.feeder.play(aside.key, audio, rate, aside.token)
        self.feeder.end(aside.key, aside.token)
        self._aside_timer.start()

    def _on_aside_timer_timeout(self) -> None:
        aside = self._aside
        if aside is None or not aside.queued:
            return
        status = self._player.status(aside.key)
        if status is not None and status.state in ("finished", "flushed"):
            self._finished(aside)

    def _finished(self, aside: _Aside) -> None:
        self._aside = None
        self._aside_timer.stop()
        if aside.apology:
            _LOGGER.info("turn=%d apology done", aside.turn_id)
            self._feed(ev.ApologyFinished(turn_id=aside.turn_id, at_s=time.monotonic()))
