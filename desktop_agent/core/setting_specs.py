"""Every setting described once: key, label, help, kind and limits, and the value checks.

The settings dialog is built from ``SETTING_SPECS``; ``Settings`` (settings.py) checks each
value with ``_check_value``.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from desktop_agent.core.conversation.openai_chat import url_problem
from desktop_agent.core.desktop.shortcut import parse_shortcut
from desktop_agent.core.errors import DesktopError, SettingsError
from desktop_agent.core.speech_server.address import SPEECH_BACKENDS, uri_problem

INVALID: Final = "invalid_setting"
UNKNOWN: Final = "unknown_setting"
MODES: Final = ("push_to_talk", "hands_free")
REFLECTION_MODES: Final = ("checkable", "on", "off")
SPEAKER_WORDS: Final = ("auto", "off")
"""``models.speaker_llm`` values that are not a model: the manifest's speaker when installed,
or none (the language model speaks)."""
LLM_BACKENDS: Final = ("local", "server")
PROPOSERS: Final = ("lexical", "model")
"""Who picks the sentences of a document answer: the ranking alone, or the local model."""
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
_KEY_NAME = re.compile(r"^[A-Za-z0-9]{1,24}$")


@dataclass(frozen=True, slots=True)
class SettingSpec:
    """How one field is validated and presented."""

    key: str
    """Dotted name, 'section.field'."""
    label: str
    help: str
    kind: str
    """'bool', 'float', 'int', 'choice', 'text', 'device_in', 'device_out', 'model', 'key',
    'folders' (a tuple of absolute folder paths), 'url' (an http(s) server address), 'env'
    (an environment variable's name, or ''), 'shortcut' (a global key such as Ctrl+Alt+Space,
    or '' for none; core/desktop/shortcut.py), 'speech_uri' (tcp://host:port or
    unix:///path; core/speech_server/address.py)."""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    step: float = 0.1

    @property
    def section(self) -> str:
        """The section part of the key."""
        return self.key.split(".", 1)[0]

    @property
    def name(self) -> str:
        """The field part of the key."""
        return self.key.split(".", 1)[1]


def _s(key: str, label: str, help_: str, kind: str, **kw: Any) -> SettingSpec:
    return SettingSpec(key, label, help_, kind, **kw)


# One row per field reads better than wrapped calls, hence the long lines.
SETTING_SPECS: Final[tuple[SettingSpec, ...]] = (
    _s("audio.input_device", "Microphone", "Part of the input device's name; empty = system default.", "device_in"),  # noqa: E501
    _s("audio.output_device", "Speaker", "Part of the output device's name; empty = system default.", "device_out"),  # noqa: E501
    _s("audio.echo_cancellation", "Echo cancellation", "Remove the assistant's own voice from the microphone.", "bool"),  # noqa: E501
    _s("models.asr", "Speech recognition model", "A model id from the manifest or an absolute path.", "model"),  # noqa: E501
    _s("models.llm", "Language model", "A model id from the manifest or an absolute path.", "model"),  # noqa: E501
    _s("models.speaker_llm", "Speaking model", "auto: the larger Qwen2.5-Coder-1.5B speaks answers when it is installed (right far more often; first audio about 320 ms later), the language model above still decides tools and checks; off: the language model above does everything; or a model id or absolute path.", "model"),  # noqa: E501
    _s("models.tts", "Voice", "A model id from the manifest or an absolute path.", "model"),
    _s("voice.speaking_rate", "Speaking rate", "1.0 is normal speed; 0.5 to 2.0.", "float", minimum=0.5, maximum=2.0),  # noqa: E501
    _s("interaction.mode", "Interaction mode", "Push-to-talk, or hands-free with voice detection.", "choice", choices=MODES),  # noqa: E501
    _s("interaction.reflection", "Check answers while speaking", "Check each answer while it is spoken and repair it aloud: only questions a rule can check (sums, counts, units, dates, word limits, word problems), every answer, or off.", "choice", choices=REFLECTION_MODES),  # noqa: E501
    _s("interaction.ptt_key", "Push-to-talk key", "Key held to talk while the window has focus, e.g. Space or F8.", "key"),  # noqa: E501
    _s("barge_in.sensitivity", "Barge-in sensitivity", "0 = hard to interrupt, 1 = interrupts easily.", "float", minimum=0.0, maximum=1.0, step=0.05),  # noqa: E501
    _s("barge_in.min_interrupt_speech_s", "Speech needed to interrupt (s)", "Seconds of your speech before the assistant stops; 0 to 5.", "float", minimum=0.0, maximum=5.0),  # noqa: E501
    _s("barge_in.resume_after_backchannel", "Resume after 'mm-hm'", "Carry on speaking after a short acknowledgement.", "bool"),  # noqa: E501
    _s("endpointing.min_silence_s", "Shortest end-of-turn pause (s)", "Silence that may end your turn; 0.1 to 5, at most the longest pause.", "float", minimum=0.1, maximum=5.0),  # noqa: E501
    _s("endpointing.max_silence_s", "Longest end-of-turn pause (s)", "Silence that always ends your turn; 0.1 to 10.", "float", minimum=0.1, maximum=10.0),  # noqa: E501
    _s("privacy.keep_history", "Keep conversation history", "Keep what you said and heard on this computer (redacted); off = nothing written, and what was kept is erased.", "bool"),  # noqa: E501
    _s("privacy.transcript_retention_days", "Keep transcripts (days)", "Days the kept conversation stays on disk; 0 = none on disk; at most 3650.", "int", minimum=0, maximum=3650, step=1),  # noqa: E501
    _s("ui.font_scale", "Text size", "1.0 is normal; 0.75 to 2.0.", "float", minimum=0.75, maximum=2.0, step=0.05),  # noqa: E501
    _s("ui.high_contrast", "High contrast", "Use a high-contrast colour scheme.", "bool"),
    _s("llm.backend", "Language model runs", "local: on this computer; server: on an OpenAI-compatible server (llama.cpp's llama-server, vLLM).", "choice", choices=LLM_BACKENDS),  # noqa: E501
    _s("llm.server_url", "LLM server URL", "The server's API base, e.g. http://127.0.0.1:8080/v1; a server on another computer is used only when its URL is set here.", "url"),  # noqa: E501
    _s("llm.server_model", "Server model name", "The model the server should use (vLLM needs it); empty = the one it serves.", "text"),  # noqa: E501
    _s("llm.api_key_env", "API key variable", "Name of the environment variable that holds the server's API key; empty = no key. The key itself is never saved.", "env"),  # noqa: E501
    _s("asr.backend", "Speech recognition runs", "local: on this computer; wyoming: on a Wyoming server (e.g. wyoming-faster-whisper), with this computer's as the fallback.", "choice", choices=SPEECH_BACKENDS),  # noqa: E501
    _s("asr.uri", "Speech recognition server", "tcp://host:port or unix:///path. Wyoming has no encryption or password: use it only on your own network.", "speech_uri"),  # noqa: E501
    _s("asr.timeout_s", "Speech recognition timeout (s)", "The longest wait for the server's transcript before this computer's engine takes over; 1 to 120.", "float", minimum=1.0, maximum=120.0, step=1.0),  # noqa: E501
    _s("tts.backend", "Voice runs", "local: on this computer; wyoming: on a Wyoming server (e.g. wyoming-piper), with this computer's voice as the fallback.", "choice", choices=SPEECH_BACKENDS),  # noqa: E501
    _s("tts.uri", "Voice server", "tcp://host:port or unix:///path. Wyoming has no encryption or password: use it only on your own network.", "speech_uri"),  # noqa: E501
    _s("tts.voice", "Server voice", "The server's voice name, e.g. en_US-joe-medium; only this one is asked for.", "text"),  # noqa: E501
    _s("tts.timeout_s", "Voice server timeout (s)", "The longest wait for the server's audio before this computer's voice takes over; 1 to 120.", "float", minimum=1.0, maximum=120.0, step=1.0),  # noqa: E501
    _s("knowledge.folders", "Knowledge folders", "Folders of your documents (Markdown, text, PDF) that answers come from; absolute paths.", "folders"),  # noqa: E501
    _s("knowledge.proposer", "Document answers chosen by", "lexical: the best-ranked sentence (fast; as accurate on the project's checks); model: the local model picks among the best sentences (about 1.5 s slower on 2 cores).", "choice", choices=PROPOSERS),  # noqa: E501
    _s("shortcuts.global_push_to_talk", "Global push-to-talk key", "Held to talk while any program has focus (X11 sessions), e.g. Ctrl+Alt+Space or F9; empty = none. Space, letters and digits need Ctrl, Alt or Super.", "shortcut"),  # noqa: E501
    _s("shortcuts.global_dictate", "Global dictation key", "Held (or tapped, then tapped again) to dictate into the window you are in: the words are typed there, never Enter. Empty = none; desktop-agent dictate toggle works either way.", "shortcut"),  # noqa: E501
    _s("shortcuts.cues", "Listening cues", "A soft tone when the global key or the ptt command starts or stops listening, so you know without looking.", "bool"),  # noqa: E501
    _s("desktop.start_at_login", "Start at login", "Start hidden in the tray (minimised without one) when you log in: an autostart entry in ~/.config/autostart; off removes it.", "bool"),  # noqa: E501
)  # fmt: skip
SPECS_BY_KEY: Final[Mapping[str, SettingSpec]] = {spec.key: spec for spec in SETTING_SPECS}


def _invalid(key: str, why: str) -> SettingsError:
    spec = SPECS_BY_KEY.get(key)
    fix = spec.help if spec else ""
    err = SettingsError(INVALID, f"{key} {why}", fix)
    err.setting_key = key  # type: ignore[attr-defined]  # which field to point at in the GUI
    return err


def error_key(err: SettingsError) -> str:
    """The dotted key an 'invalid_setting' error is about ('' if it names none)."""
    return str(getattr(err, "setting_key", ""))


def is_absolute_path(text: str) -> bool:
    """True for an absolute POSIX or Windows path (settings files travel between systems)."""
    return posixpath.isabs(text) or ntpath.isabs(text)


MAX_FOLDERS: Final = 100


def _check_folders(key: str, value: Any) -> tuple[str, ...]:
    """A list of absolute folder paths, stripped, without duplicates, as a tuple."""
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise _invalid(key, f"must be a list of folder paths (got {value!r})")
    folders: list[str] = []
    for item in value:
        if not isinstance(item, str):
            raise _invalid(key, f"must be a list of folder paths (got {item!r} in it)")
        item = item.strip()
        if not item or any(ord(c) < 32 for c in item) or len(item) > 1000:
            raise _invalid(key, f"must hold folder paths without control characters "
                                f"(got {item!r})")
        if not is_absolute_path(item):
            raise _invalid(key, f"must hold absolute folder paths (got {item!r})")
        if item not in folders:
            folders.append(item)
    if len(folders) > MAX_FOLDERS:
        raise _invalid(key, f"must hold at most {MAX_FOLDERS} folders (got {len(folders)})")
    return tuple(folders)


def _check_value(spec: SettingSpec, value: Any) -> Any:
    """Return ``value`` normalised for ``spec`` or raise SettingsError."""
    key, kind = spec.key, spec.kind
    if kind == "folders":
        return _check_folders(key, value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise _invalid(key, f"must be true or false (got {value!r})")
        return value
    if kind in ("float", "int"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _invalid(key, f"must be a number (got {value!r})")
        if kind == "int" and not isinstance(value, int):
            if not float(value).is_integer():
                raise _invalid(key, f"must be a whole number (got {value!r})")
            value = int(value)
        value = float(value) if kind == "float" else value
        if value != value:  # NaN compares unequal to itself
            raise _invalid(key, "must be a number (got NaN)")
        lo, hi = spec.minimum, spec.maximum
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise _invalid(key, f"must be between {lo:g} and {hi:g} (got {value:g})")
        return value
    if not isinstance(value, str):
        raise _invalid(key, f"must be text (got {value!r})")
    if kind == "choice":
        if value not in spec.choices:
            raise _invalid(key, f"must be one of {', '.join(spec.choices)} (got {value!r})")
    elif kind == "model":
        value = value.strip()
        if not value:
            raise _invalid(key, "must not be empty")
        looks_like_path = any(c in value for c in "/\\~") or value.startswith(".")
        if looks_like_path and not is_absolute_path(value):
            raise _invalid(key, f"must be an absolute path to a model file (got {value!r})")
        if not looks_like_path and not _MODEL_ID.match(value):
            raise _invalid(key, f"is not a valid model id (got {value!r})")
    elif kind == "url":
        value = value.strip()
        problem = url_problem(value)
        if problem:
            raise _invalid(key, problem)
    elif kind == "speech_uri":
        value = value.strip()
        problem = uri_problem(value)
        if problem:
            raise _invalid(key, problem)
    elif kind == "env":
        value = value.strip()
        if value and not _ENV_NAME.match(value):
            raise _invalid(key, f"must be an environment variable's name such as "
                                f"LLM_API_KEY, or empty (got {value!r})")
    elif kind == "key":
        value = value.strip()
        if not _KEY_NAME.match(value):
            raise _invalid(key, f"must be a single key name such as Space or F8 (got {value!r})")
    elif kind == "shortcut":
        value = value.strip()
        if value:
            try:
                value = parse_shortcut(value).text
            except DesktopError as err:
                raise _invalid(key, f"is refused: {err.message} Instead, {err.fix}") from None
    elif kind in ("device_in", "device_out", "text"):
        value = value.strip()
        if len(value) > 200 or any(ord(c) < 32 for c in value):
            what = "text" if kind == "text" else "device name"
            raise _invalid(key, f"must be a short {what} without control characters")
    return value
