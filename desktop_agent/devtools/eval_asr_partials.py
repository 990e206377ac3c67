"""``eval asr --through partials``: each recording transcribed as the recorder transcribes it.

While the user speaks the recorder runs partial transcripts (every 0.8 s, and at once at a
pause the VAD hears), commits the words two of them agree on and decodes later passes from
the pause after those words, with the words as context (``core/listening/partials.py``). The
final transcript is the newest partial when it heard every speech frame, else one pass over
the audio after the committed words. Each cut is a place where the recogniser no longer hears
the words before it: this replay measures what that costs in accuracy.

The recording gets ``LEAD_S`` of silence before it and ``TAIL_S`` after it (the key is held
that long after the last word); Silero judges it in 32 ms frames, as the capture path does.
Every partial is launched when the rules say so and answers before the next frame: more
partials, and so more cuts, than a busy worker leaves room for. That is the harder test of
accuracy, not a timing.

Figures per file: ``partials`` (passes during the speech), ``committed_words`` (at the end),
``final`` ("partial": a partial was the final transcript; "tail": one pass over the audio after
committed words; "whole": one pass over it all), ``final_asr_ms`` (that pass's wall time, 0 for
"partial") and ``whole_asr_ms`` (a pass over the whole recording, timed beside it on the same
machine).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import numpy.typing as npt

from desktop_agent.core.listening.partials import PartialSettings, PartialTrack, join_transcript

FS = 16_000
FRAME = 512
"""Silero's frame: 32 ms."""
LEAD_S = 0.3
TAIL_S = 0.15
"""Silence after the recording: the bench's push-to-talk user lets go 150 ms after the last
word."""
SPEECH_THRESHOLD = 0.5


class PartialsReplay:
    """Replays recordings through the recorder's partial rules (see the module doc).

    Args:
        engine: The ASR engine (``transcribe(audio, context=...)``).
        vad: The VAD (Silero by default); ``reset`` is called per recording.
        settings: The rules' knobs (the app's by default): other values measure other rules.
        context: False decodes the audio after a cut without the committed words.
    """

    def __init__(self, engine: Any, vad: Any = None,
                 settings: PartialSettings | None = None, context: bool = True) -> None:
        if vad is None:
            from desktop_agent.adapters.listening.vad_silero import SileroVad
            vad = SileroVad()
        self.engine = engine
        self.vad = vad
        self.settings = settings or PartialSettings()
        self.context = context

    def _pass(self, audio: npt.NDArray[np.float32], context: str) -> tuple[str, float]:
        start = time.perf_counter()
        heard = (self.engine.transcribe(audio, context=context) if self.context
                 else self.engine.transcribe(audio))
        text = heard.text.strip()
        return join_transcript(context, text), (time.perf_counter() - start) * 1000

    def run(self, audio: npt.NDArray[np.float32], transcribe: Any = None
            ) -> tuple[str, dict[str, Any]]:
        """(the final transcript, the figures) for one recording (``transcribe`` unused)."""
        audio = np.asarray(audio, dtype=np.float32).reshape(-1)
        clip = np.concatenate([np.zeros(int(LEAD_S * FS), np.float32), audio,
                               np.zeros(int(TAIL_S * FS), np.float32)])
        self.vad.reset()
        track = PartialTrack(start=0, rate=FS, settings=self.settings)
        last_speech: int | None = None
        last_launch: int | None = None
        partials = 0
        for end in range(FRAME, len(clip) + 1, FRAME):
            if self.vad.speech_probability(clip[end - FRAME:end]) >= SPEECH_THRESHOLD:
                last_speech = end
            since = float("inf") if last_launch is None else (end - last_launch) / FS
            launch = track.next_launch(end=end, judged_end=end, last_speech=last_speech,
                                       since_launch_s=since)
            if launch is None:
                continue
            last_launch = end
            partials += 1
            text, _ms = self._pass(clip[launch.audio_start:end], launch.context)
            track.add(launch, end, text)
        end = len(clip) // FRAME * FRAME
        if track.newest and track.covers(track.newest_end, last_speech):
            final, kind, final_ms = track.newest, "partial", 0.0
        else:
            kind = "tail" if track.committed else "whole"
            final, final_ms = self._pass(clip[track.audio_start():end], track.committed)
        _whole, whole_ms = self._pass(clip[:end], "")
        return final, {"partials": partials, "committed_words": len(track.committed.split()),
                       "final": kind, "final_asr_ms": round(final_ms, 1),
                       "whole_asr_ms": round(whole_ms, 1)}
