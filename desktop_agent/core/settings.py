"""Frozen, validated user settings.

``Settings`` is a tree of frozen sections. Every field is described once in
``SETTING_SPECS`` (label, help text, kind, range); validation and the GUI's settings
dialog both read it, so a new field needs exactly one spec to be validated and editable.

Invalid values raise ``SettingsError(code="invalid_setting")`` whose message names the
field (``voice.speaking_rate``) and says why. Stdlib only; reading and writing the TOML
file is ``adapters/settings_store.py``'s job.
"""

from __future__ import annotations

import dataclasses
import ntpath
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from desktop_agent.core.errors import SettingsError
from desktop_agent.core.openai_chat import DEFAULT_SERVER_URL, url_problem

INVALID: Final = "invalid_setting"
UNKNOWN: Final = "unknown_setting"
MODES: Final = ("push_to_talk", "hands_free")
REFLECTION_MODES: Final = ("checkable", "on", "off")
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
    (an environment variable's name, or '')."""
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
    _s("models.tts", "Voice", "A model id from the manifest or an absolute path.", "model"),
    _s("voice.speaking_rate", "Speaking rate", "1.0 is normal speed; 0.5 to 2.0.", "float", minimum=0.5, maximum=2.0),  # noqa: E501
    _s("interaction.mode", "Interaction mode", "Push-to-talk, or hands-free with voice detection.", "choice", choices=MODES),  # noqa: E501
    _s("interaction.reflection", "Check answers while speaking", "Check each answer while it is spoken and repair it aloud: only questions a rule can check (sums, counts, units, dates, word limits), every answer, or off.", "choice", choices=REFLECTION_MODES),  # noqa: E501
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
    _s("knowledge.folders", "Knowledge folders", "Folders of your documents (Markdown, text, PDF) that answers come from; absolute paths.", "folders"),  # noqa: E501
    _s("knowledge.proposer", "Document answers chosen by", "lexical: the best-ranked sentence (fast; as accurate on the project's checks); model: the local model picks among the best sentences (about 1.5 s slower on 2 cores).", "choice", choices=PROPOSERS),  # noqa: E501
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
    elif kind == "env":
        value = value.strip()
        if value and not _ENV_NAME.match(value):
            raise _invalid(key, f"must be an environment variable's name such as "
                                f"LLM_API_KEY, or empty (got {value!r})")
    elif kind == "key":
        value = value.strip()
        if not _KEY_NAME.match(value):
            raise _invalid(key, f"must be a single key name such as Space or F8 (got {value!r})")
    elif kind in ("device_in", "device_out", "text"):
        value = value.strip()
        if len(value) > 200 or any(ord(c) < 32 for c in value):
            what = "text" if kind == "text" else "device name"
            raise _invalid(key, f"must be a short {what} without control characters")
    return value


class _Section:
    """Validation shared by every section: each field is checked against its spec."""

    SECTION: ClassVar[str] = ""
    __slots__ = ()

    def _validate(self) -> None:
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            spec = SPECS_BY_KEY[f"{self.SECTION}.{f.name}"]
            value = _check_value(spec, getattr(self, f.name))
            # Frozen: normalised values (int -> float, stripped text) go in via object.__setattr__.
            object.__setattr__(self, f.name, value)

    def __post_init__(self) -> None:
        self._validate()


@dataclass(frozen=True, slots=True)
class AudioSettings(_Section):
    """Audio devices and echo cancellation."""

    SECTION: ClassVar[str] = "audio"
    input_device: str = ""
    """Substring of the input device's name; '' = system default."""
    output_device: str = ""
    """Substring of the output device's name; '' = system default."""
    echo_cancellation: bool = True


@dataclass(frozen=True, slots=True)
class ModelSettings(_Section):
    """Which model each engine loads: a manifest id or an absolute path."""

    SECTION: ClassVar[str] = "models"
    asr: str = "whisper-tiny-en"
    llm: str = "qwen2.5-coder-0.5b-instruct-q4km"
    tts: str = "piper-en-us-joe-medium"


@dataclass(frozen=True, slots=True)
class VoiceSettings(_Section):
    """How the assistant speaks."""

    SECTION: ClassVar[str] = "voice"
    speaking_rate: float = 1.0
    """Speed factor, 0.5 to 2.0 (1.0 = the voice's normal speed)."""


@dataclass(frozen=True, slots=True)
class InteractionSettings(_Section):
    """How a turn starts."""

    SECTION: ClassVar[str] = "interaction"
    mode: str = "push_to_talk"
    """'push_to_talk' or 'hands_free'."""
    ptt_key: str = "Space"
    """Qt key name held to talk while the main window has focus."""
    reflection: str = "checkable"
    """Verdict-gated speech: 'checkable' (answers a literal check understands), 'on' (every
    answer; the model judges facts) or 'off'."""


@dataclass(frozen=True, slots=True)
class BargeInSettings(_Section):
    """When the user's speech interrupts the assistant."""

    SECTION: ClassVar[str] = "barge_in"
    sensitivity: float = 0.5
    """0.0 (hard to interrupt) to 1.0 (interrupts easily)."""
    min_interrupt_speech_s: float = 0.6
    """Seconds of user speech before the assistant stops."""
    resume_after_backchannel: bool = True


@dataclass(frozen=True, slots=True)
class EndpointingSettings(_Section):
    """How long a pause ends the user's turn."""

    SECTION: ClassVar[str] = "endpointing"
    min_silence_s: float = 0.4
    """Seconds of silence that may end a turn (when the utterance looks complete)."""
    max_silence_s: float = 2.0
    """Seconds of silence that always end a turn."""

    def __post_init__(self) -> None:
        """Validate each field, then that the minimum pause does not exceed the maximum."""
        self._validate()
        if self.min_silence_s > self.max_silence_s:
            raise _invalid(
                "endpointing.min_silence_s",
                f"must not exceed endpointing.max_silence_s "
                f"({self.min_silence_s:g} > {self.max_silence_s:g})",
            )


@dataclass(frozen=True, slots=True)
class PrivacySettings(_Section):
    """What is remembered."""

    SECTION: ClassVar[str] = "privacy"
    keep_history: bool = True
    """Write each exchange (redacted) to the store: adapters/history_store.py."""
    transcript_retention_days: int = 30
    """Days the kept conversation stays on disk (purged at start and daily); 0 = none kept."""


@dataclass(frozen=True, slots=True)
class UiSettings(_Section):
    """Presentation."""

    SECTION: ClassVar[str] = "ui"
    font_scale: float = 1.0
    """Text size factor, 0.75 to 2.0."""
    high_contrast: bool = False


@dataclass(frozen=True, slots=True)
class KnowledgeSettings(_Section):
    """The user's documents that grounded answers come from."""

    SECTION: ClassVar[str] = "knowledge"
    folders: tuple[str, ...] = ()
    """Absolute paths of the folders indexed (Markdown, plain text, PDF; sub-folders too)."""
    proposer: str = "lexical"
    """'lexical' or 'model': who proposes a document answer's sentences (see PROPOSERS)."""


@dataclass(frozen=True, slots=True)
class LlmSettings(_Section):
    """Where the language model runs: here (``models.llm``) or on a chat server."""

    SECTION: ClassVar[str] = "llm"
    backend: str = "local"
    """'local' (llama.cpp in this process) or 'server' (OpenAI-compatible HTTP)."""
    server_url: str = DEFAULT_SERVER_URL
    """The server's API base URL; loopback by default."""
    server_model: str = ""
    """Model name sent to the server ('' = the server's own)."""
    api_key_env: str = ""
    """Name of the environment variable holding the API key ('' = no key)."""


_SECTIONS: Final[dict[str, type[_Section]]] = {
    "audio": AudioSettings,
    "models": ModelSettings,
    "voice": VoiceSettings,
    "interaction": InteractionSettings,
    "barge_in": BargeInSettings,
    "endpointing": EndpointingSettings,
    "privacy": PrivacySettings,
    "ui": UiSettings,
    "knowledge": KnowledgeSettings,
    "llm": LlmSettings,
}


@dataclass(frozen=True, slots=True)
class ParsedSettings:
    """The result of a lenient parse: usable settings plus what was ignored."""

    settings: Settings
    unknown_keys: tuple[str, ...] = ()
    """Dotted keys that no setting has (e.g. from a newer version)."""
    rejected: tuple[SettingsError, ...] = ()
    """Invalid values that were replaced by their defaults."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Every user setting. Frozen: change one with ``replace_field``."""

    audio: AudioSettings = field(default_factory=AudioSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    interaction: InteractionSettings = field(default_factory=InteractionSettings)
    barge_in: BargeInSettings = field(default_factory=BargeInSettings)
    endpointing: EndpointingSettings = field(default_factory=EndpointingSettings)
    privacy: PrivacySettings = field(default_factory=PrivacySettings)
    ui: UiSettings = field(default_factory=UiSettings)
    knowledge: KnowledgeSettings = field(default_factory=KnowledgeSettings)
    llm: LlmSettings = field(default_factory=LlmSettings)

    @property
    def knowledge_folders(self) -> tuple[str, ...]:
        """The knowledge folders (``knowledge.folders``)."""
        return self.knowledge.folders

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """A nested dict of plain values (TOML-ready)."""
        return {
            name: {f.name: getattr(getattr(self, name), f.name) for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
            for name, cls in _SECTIONS.items()
        }

    def get(self, key: str) -> Any:
        """The value of the dotted ``key``, e.g. ``get("voice.speaking_rate")``."""
        section, name = _split_key(key)
        return getattr(getattr(self, section), name)

    def replace_field(self, key: str, value: Any) -> Settings:
        """Return new Settings with the dotted ``key`` set to ``value``.

        Raises:
            SettingsError: 'unknown_setting' for a key no setting has, 'invalid_setting'
                for a value the field refuses (the message names the field and why).
        """
        section, name = _split_key(key)
        new_section = dataclasses.replace(getattr(self, section), **{name: value})
        return dataclasses.replace(self, **{section: new_section})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Settings:
        """Build Settings from a nested dict; missing keys take their defaults.

        Raises:
            SettingsError: 'unknown_setting' naming every unknown key, or
                'invalid_setting' for the first invalid value.
        """
        parsed = cls.parse(data)
        if parsed.rejected:
            raise parsed.rejected[0]
        if parsed.unknown_keys:
            raise SettingsError(UNKNOWN, "unknown settings: " + ", ".join(parsed.unknown_keys))
        return parsed.settings

    @classmethod
    def parse(cls, data: Mapping[str, Any]) -> ParsedSettings:
        """Build Settings leniently: report unknown keys, replace invalid values by defaults."""
        unknown: list[str] = []
        rejected: list[SettingsError] = []
        sections: dict[str, _Section] = {}
        for key in data:
            if key not in _SECTIONS:
                unknown.append(str(key))
        for name, section_cls in _SECTIONS.items():
            raw = data.get(name, {})
            if not isinstance(raw, Mapping):
                rejected.append(_invalid(name, f"must be a table of settings (got {raw!r})"))
                raw = {}
            known = {f.name for f in dataclasses.fields(section_cls)}  # type: ignore[arg-type]
            unknown.extend(f"{name}.{k}" for k in raw if k not in known)
            values: dict[str, Any] = {}
            for k in known & set(raw):
                try:
                    _check_value(SPECS_BY_KEY[f"{name}.{k}"], raw[k])
                except SettingsError as err:
                    rejected.append(err)
                else:
                    values[k] = raw[k]
            try:
                sections[name] = section_cls(**values)
            except SettingsError as err:  # cross-field rule (e.g. min > max): whole section
                rejected.append(err)
                sections[name] = section_cls()
        return ParsedSettings(cls(**sections), tuple(unknown), tuple(rejected))  # type: ignore[arg-type]


def check_values(values: Mapping[str, Any]) -> tuple[Settings | None, dict[str, str]]:
    """Validate a flat ``{dotted key: value}`` mapping of every field the caller edits.

    Returns:
        (Settings, {}) when all values are valid; otherwise (None, {key: reason}) with a
        reason for each refused field (cross-field rules name the first field involved).
    """
    nested: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        section, name = _split_key(key)
        nested.setdefault(section, {})[name] = value
    parsed = Settings.parse(nested)
    if not parsed.rejected:
        return parsed.settings, {}
    return None, {error_key(err): err.message for err in parsed.rejected}


def _split_key(key: str) -> tuple[str, str]:
    if key not in SPECS_BY_KEY:
        raise SettingsError(UNKNOWN, f"there is no setting called {key!r}")
    section, name = key.split(".", 1)
    return section, name
