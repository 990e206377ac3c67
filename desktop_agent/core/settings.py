"""Frozen, validated user settings.

``Settings`` is a tree of frozen sections. Every field is described once in
``SETTING_SPECS`` (label, help text, kind, range); validation and the GUI's settings
dialog both read it, so a new field needs exactly one spec to be validated and editable.

Invalid values raise ``SettingsError(code="invalid_setting")`` whose message names the
field (``voice.speaking_rate``) and says why. Stdlib only; reading and writing the TOML
file is ``adapters/store/settings_store.py``'s job.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from desktop_agent.core.conversation.openai_chat import DEFAULT_SERVER_URL
from desktop_agent.core.errors import SettingsError
from desktop_agent.core.setting_specs import (
    SPECS_BY_KEY,
    UNKNOWN,
    _check_value,
    _invalid,
    error_key,
)


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
    speaker_llm: str = "auto"
    """Which model speaks prose answers while ``llm`` decides tools and checks replies:
    'auto' (the manifest's speaker model when it is installed, else ``llm`` alone), 'off'
    (``llm`` alone), or a model id or absolute path (loaded beside ``llm``)."""


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
    """Write each exchange (redacted) to the store: adapters/store/history_store.py."""
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


@dataclass(frozen=True, slots=True)
class AsrSettings(_Section):
    """Where speech recognition runs: here (``models.asr``) or on a Wyoming server."""

    SECTION: ClassVar[str] = "asr"
    backend: str = "local"
    """'local' or 'wyoming' (core/speech_server/address.py); local is the fallback."""
    uri: str = "tcp://127.0.0.1:10300"
    """The Wyoming server: tcp://host:port or unix:///path."""
    timeout_s: float = 10.0
    """The longest wait for the server's transcript, seconds."""


@dataclass(frozen=True, slots=True)
class TtsSettings(_Section):
    """Where the voice runs: here (``models.tts``) or on a Wyoming server."""

    SECTION: ClassVar[str] = "tts"
    backend: str = "local"
    """'local' or 'wyoming'."""
    uri: str = "tcp://127.0.0.1:10200"
    """The Wyoming server: tcp://host:port or unix:///path."""
    voice: str = "en_US-joe-medium"
    """The server's voice; only this one is asked for (a server may list voices it lacks)."""
    timeout_s: float = 10.0
    """The longest wait for each part of a sentence's audio, seconds."""


@dataclass(frozen=True, slots=True)
class ShortcutsSettings(_Section):
    """Keys that reach the app while another program has focus."""

    SECTION: ClassVar[str] = "shortcuts"
    global_push_to_talk: str = "Ctrl+Alt+Space"
    """Held to talk from any program (an X11 grab; core/desktop/shortcut.py reads the text);
    '' = none. Stored in its canonical text ('ctrl+alt+space' -> 'Ctrl+Alt+Space')."""
    global_dictate: str = ""
    """Held (or tapped, then tapped again) to dictate into the focused window from any
    program: the same backends as ``global_push_to_talk``; '' = none (``desktop-agent
    dictate`` still works). Stored in its canonical text."""
    cues: bool = True
    """A soft tone when the global key or ``desktop-agent ptt`` starts or stops listening."""


@dataclass(frozen=True, slots=True)
class DesktopSettings(_Section):
    """How the app sits on the desktop."""

    SECTION: ClassVar[str] = "desktop"
    start_at_login: bool = False
    """Start hidden at login: an XDG autostart entry (adapters/desktop/autostart.py)."""


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
    "asr": AsrSettings,
    "tts": TtsSettings,
    "shortcuts": ShortcutsSettings,
    "desktop": DesktopSettings,
}


KEPT_TABLES: Final = ("mcp",)
"""Tables of settings.toml parsed elsewhere (``[mcp.servers.NAME]``: ``core.mcp.config``):
not unknown here, and written back as they were by ``save_settings``."""


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
    asr: AsrSettings = field(default_factory=AsrSettings)
    tts: TtsSettings = field(default_factory=TtsSettings)
    shortcuts: ShortcutsSettings = field(default_factory=ShortcutsSettings)
    desktop: DesktopSettings = field(default_factory=DesktopSettings)

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
            if key not in _SECTIONS and key not in KEPT_TABLES:
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
