"""Recordings and transcripts: what the user said, cut from the mic history.

Owns the recordings the turn machine opens and closes (StartRecording / StopRecording),
schedules partial transcripts while the user speaks (every 0.8 s, and at once when the
speech pauses), commits the words two partials agree on so that later passes decode only
the audio after them (``core/listening/partials.py``), and answers Transcribe: with a typed
text, with the newest partial when it already covers every speech frame (no second Whisper
pass), by waiting for the partial on the worker when that one will, or with an ASR job over
the audio after the committed words.

Runs on: GUI thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QTimer

from desktop_agent.audio.backend import AudioBackend
from desktop_agent.audio.capture import CapturePipeline
from desktop_agent.audio.mic_history import VAD_FRAME
from desktop_agent.core.cancel import CancelToken, TurnId
from desktop_agent.core.errors import AgentError
from desktop_agent.core.listening.endpointing import Endpointer, EndpointingSettings
from desktop_agent.core.listening.partials import Launch, PartialSettings, PartialTrack
from desktop_agent.core.turns import commands as cmd
from desktop_agent.core.turns import events as ev
from desktop_agent.core.turns.context import normalise_for_compare
from desktop_agent.core.turns.states import JobId, State, Transition
from desktop_agent.runtime.controller_ports import Feed, MachineView, TokenFor
from desktop_agent.runtime.payloads import AsrJob, AsrPartialResult

PREROLL_S = 0.15
"""Audio kept before the press / onset: the first phoneme often starts early."""
TAIL_S = 0.1
"""Audio kept after the stop (the key's release), unless the user was silent by then."""
PARTIAL_EVERY_S = 0.03
"""Tick of the partial scheduler while the user speaks (it launches only when the ASR
worker is idle): a pause partial starts within a VAD frame of the pause being heard."""
JUDGED_POLL_MS = 10
"""How often a Transcribe waits for the capture to judge the recording's last block."""


@dataclass
class _Recording:
    turn_id: TurnId
    track: PartialTrack
    """Its partials: the newest, the committed words and where they end."""
    until_idx: int | None = None
    stop_idx: int | None = None
    """Mic index of the stop itself (``until_idx`` adds a short tail after it)."""
    inflight: tuple[Launch, int] | None = None
    """The partial on the worker now: how it was launched, and where its audio ends."""
    awaiting_final: JobId | None = None
    """A Transcribe job answered by the in-flight partial (it covers every speech frame)."""
    final_after: cmd.Transcribe | None = None
    """A Transcribe to answer once the in-flight partial is back (that one does not cover
    the speech; the worker is busy with it anyway, and it may commit more words)."""
    last_launch_idx: int | None = None
    """Mic index where the audio of the newest partial launched ended (None: none yet)."""

    @property
    def from_idx(self) -> int:
        """Mic index where the recording starts."""
        return self.track.start


class Recorder(QObject):
    """Recordings, partials and final transcripts.

    Recordings of turns before the previous one are forgotten when a new one opens, so the
    table stays bounded for the life of the app.

    Args:
        machine: Read-only view of the turn machine (state and turn of the scheduler).
        backend: Maps clock seconds to mic indices.
        pipeline: The capture pipeline (mic history, last speech, endpointing silence).
        feed: The controller's single entry into the machine.
        submit_asr: Queues an ``AsrJob`` to the ASR worker.
        asr_busy: Whether the ASR worker is running a job now.
        token: The cancel token of a job.
        endpointing: Endpointing limits (None: the defaults).
        parent: The owning QObject.
        partials: The partial transcripts' rules (None: the app's).
    """

    def __init__(self, machine: MachineView, backend: AudioBackend, pipeline: CapturePipeline,
                 *, feed: Feed, submit_asr: Callable[[AsrJob], None],
                 asr_busy: Callable[[], bool], token: TokenFor,
                 endpointing: EndpointingSettings | None = None,
                 parent: QObject | None = None,
                 partials: PartialSettings | None = None) -> None:
        """Wire it up; the class docstring describes the arguments."""
        super().__init__(parent)
        self.partials = partials or PartialSettings()
        """The partial rules' knobs (``core/listening/partials.py``; the defaults are the app's)."""
        self._machine = machine
        self.backend = backend
        self.pipeline = pipeline
        self._feed = feed
        self._asr_job = submit_asr
        self._asr_busy = asr_busy
        self._token = token
        self.endpointer = Endpointer(endpointing)
        self._recordings: dict[JobId, _Recording] = {}
        self.typed_text: str | None = None
        """Set by a typed question: the next Transcribe answers with it."""
        self._timer = QTimer(self)
        self._timer.setInterval(int(PARTIAL_EVERY_S * 1000))
        self._timer.timeout.connect(self._on_timer_timeout)

    def on_transition(self, t: Transition) -> None:
        """Run the partial scheduler only while the user speaks."""
        if t.target is State.USER_SPEAKING:
            self._timer.start()
        elif t.source is State.USER_SPEAKING:
            self._timer.stop()

    def start(self, c: cmd.StartRecording) -> None:
        """Open a recording from ``c.from_s`` (minus the pre-roll)."""
        start = self.backend.sample_at(c.from_s) - int(PREROLL_S * self.backend.rate)
        for job in [j for j, r in self._recordings.items() if r.turn_id < c.turn_id - 1]:
            del self._recordings[job]
        self._recordings[c.job] = _Recording(
            c.turn_id, PartialTrack(max(0, start), self.backend.rate, self.partials))

    def stop(self, c: cmd.StopRecording) -> None:
        """Close a recording at ``c.until_s`` (plus a short tail)."""
        rec = self._recordings.get(c.job)
        if rec is not None:
            rec.stop_idx = self.backend.sample_at(c.until_s)
            rec.until_idx = rec.stop_idx + int(TAIL_S * self.backend.rate)

    def transcribe(self, c: cmd.Transcribe, attempt: int = 0) -> None:
        """Final transcript: a typed text, the covering partial, or an ASR job on the rest."""
        rec = self._recordings.get(c.recording)
        if rec is None or rec.until_idx is None:
            raise AgentError("recording_missing", "The recording to transcribe was lost.")
        if self.typed_text is not None:
            text, self.typed_text = self.typed_text, None
            self._feed(ev.AsrFinal(turn_id=c.turn_id, at_s=time.monotonic(), job=c.job,
                                   text=text, no_speech=False))
            return
        history = self.pipeline.history
        self._drop_silent_tail(rec)
        if history.judged_end < rec.until_idx and attempt < 2000 // JUDGED_POLL_MS:
            # The capture is a block behind: whether a partial covers the speech depends on
            # what the VAD makes of it.
            QTimer.singleShot(JUDGED_POLL_MS, lambda: self.transcribe(c, attempt + 1))
            return
        if self._partial_is_final(rec):
            # The newest partial already heard every speech frame of the recording: it is
            # the final transcript, and re-transcribing would only add latency.
            self._feed(ev.AsrFinal(turn_id=c.turn_id, at_s=time.monotonic(), job=c.job,
                                   text=rec.track.newest, no_speech=False))
            return
        if rec.inflight is not None:
            if self._covers_speech(rec, rec.inflight[1]):
                rec.awaiting_final = c.job  # the partial on the worker now will be the final
            else:
                rec.final_after = c  # an ASR job now would only queue behind it
            return
        start = rec.track.audio_start()
        audio = history.slice(start, rec.until_idx)
        ratio = history.speech_ratio(start, rec.until_idx)
        self._asr_job(AsrJob(c.turn_id, c.job, audio, self._token(c.job, c.turn_id),
                             speech_ratio=max(ratio, 0.0), context=rec.track.committed))

    def _drop_silent_tail(self, rec: _Recording) -> None:
        """Cut the tail when the user had already stopped speaking at the stop.

        The tail catches a last syllable still spoken as the key comes up; when the VAD
        heard no speech for ``TAIL_S`` before the stop, there is none, and waiting for the
        capture to deliver the tail would only delay the final transcript. The VAD judges
        whole 32 ms frames, so its verdicts usually stop short of the stop by part of a
        frame: that sliver is dropped too when the silence before it is ``TAIL_S`` long
        (waiting for the next frame cost a capture block, ~35 ms, on every turn).
        """
        history = self.pipeline.history
        judged = history.judged_end  # the VAD's verdicts reach this far (not history.end)
        if (rec.stop_idx is None or rec.until_idx is None
                or judged < rec.stop_idx - VAD_FRAME or judged >= rec.until_idx):
            return
        last = history.last_speech_between(rec.from_idx, judged)
        if last is None or last + int(TAIL_S * self.backend.rate) <= min(judged, rec.stop_idx):
            rec.until_idx = judged

    def _partial_is_final(self, rec: _Recording) -> bool:
        """True when no speech frame came after the audio of the newest partial."""
        if not rec.track.newest or rec.until_idx is None:
            return False
        if self.pipeline.history.judged_end < rec.until_idx:
            return False  # capture lags (a busy machine): the VAD has not judged it all
        return self._covers_speech(rec, rec.track.newest_end)

    def _covers_speech(self, rec: _Recording, end_idx: int | None) -> bool:
        """True when audio up to ``end_idx`` holds every speech frame of the recording."""
        if (end_idx is None or rec.until_idx is None
                or self.pipeline.history.judged_end < rec.until_idx):
            return False
        last_speech = self.pipeline.history.last_speech_between(rec.from_idx, rec.until_idx)
        return rec.track.covers(end_idx, last_speech)

    def _on_timer_timeout(self) -> None:
        """Launch a partial transcript when one is due (``PartialTrack.next_launch``).

        While the user speaks: every 0.8 s, and at once when the speech pauses (that partial
        usually covers the whole utterance, so it can be the final transcript the moment the
        user lets go).
        """
        if self._machine.state is not State.USER_SPEAKING or self._asr_busy():
            return
        live = [(job, r) for job, r in self._recordings.items()
                if r.until_idx is None and r.turn_id == self._machine.turn_id]
        if not live:
            return
        job, rec = live[-1]
        if rec.inflight is not None:
            return
        history = self.pipeline.history
        end, judged = history.end, history.judged_end
        last_speech = history.last_speech_between(rec.from_idx, judged)
        # The cadence is in audio time: the mic's clock, not the GUI thread's.
        since = (float("inf") if rec.last_launch_idx is None
                 else (end - rec.last_launch_idx) / self.backend.rate)
        launch = rec.track.next_launch(end=end, judged_end=judged, last_speech=last_speech,
                                       since_launch_s=since)
        if launch is None:
            return
        rec.last_launch_idx = end
        rec.inflight = (launch, end)
        trailing = (end - (last_speech or end)) / self.backend.rate
        self._asr_job(AsrJob(rec.turn_id, job, history.slice(launch.audio_start, end),
                             CancelToken(rec.turn_id), partial=True,
                             speech_ratio=history.speech_ratio(launch.audio_start, end),
                             previous_partial=rec.track.newest,
                             trailing_silence_s=trailing, context=launch.context))

    def on_partial(self, result: AsrPartialResult) -> None:
        """A partial transcript came back (possibly empty). Runs on: GUI thread."""
        job, text, no_speech = result.job, result.text, result.no_speech
        rec = self._recordings.get(job.job)
        if rec is not None and rec.inflight is not None:
            launch, end = rec.inflight
            rec.inflight = None
            rec.track.add(launch, end, "" if no_speech else text)
            if rec.awaiting_final is not None:
                final, rec.awaiting_final = rec.awaiting_final, None
                self._feed(ev.AsrFinal(turn_id=job.turn_id, at_s=time.monotonic(), job=final,
                                       text="" if no_speech else text, no_speech=no_speech))
                return
            if rec.final_after is not None:
                command, rec.final_after = rec.final_after, None
                self.transcribe(command)
        if no_speech:
            return
        silent_tail = job.trailing_silence_s >= 0.25
        stable = bool(text) and (silent_tail or normalise_for_compare(text)
                                 == normalise_for_compare(job.previous_partial))
        self._feed(ev.AsrPartial(turn_id=job.turn_id, at_s=time.monotonic(), job=job.job,
                                 text=text, stable=stable,
                                 trailing_silence_s=job.trailing_silence_s))

    def note_partial(self, job: JobId, text: str) -> None:
        """Adapt the endpointer to the newest partial of the current turn."""
        self.pipeline.silence_s = self.endpointer.silence_needed_s(text)
