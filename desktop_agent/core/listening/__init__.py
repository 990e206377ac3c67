"""Turn-taking policies: VAD segmenting, adaptive endpointing, barge-in (pure, stdlib only)."""

from __future__ import annotations

from desktop_agent.core.listening.bargein import BargeInDecider, BargeInSettings, Decision, Verdict
from desktop_agent.core.listening.endpointing import (
    Endpointer,
    EndpointingSettings,
    HallucinationSettings,
    is_hallucination,
)
from desktop_agent.core.listening.segmenter import (
    EndReason,
    SegmenterSettings,
    SegmentEvent,
    SpeechSegmenter,
)

__all__ = [
    "bargein",
    "bargein_judge",
    "endpointing",
    "partials",
    "segmenter",
    "tokens",
    "BargeInDecider",
    "BargeInSettings",
    "Decision",
    "EndReason",
    "Endpointer",
    "EndpointingSettings",
    "HallucinationSettings",
    "SegmentEvent",
    "SegmenterSettings",
    "SpeechSegmenter",
    "Verdict",
    "is_hallucination",
]
