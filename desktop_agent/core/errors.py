"""Typed errors with stable codes.

Every error the user can see carries a stable ``code`` (tests assert on it), a
``message`` that says what went wrong, and a ``fix`` that says what to do.
"""

from __future__ import annotations


class AgentError(Exception):
    """Base class of every error desktop_agent reports to a person."""

    default_code = "agent_error"

    def __init__(self, code: str | None, message: str, fix: str = "") -> None:
        """Create the error.

        Args:
            code: Stable machine-readable code (None: the class's ``default_code``).
            message: What went wrong, in one sentence.
            fix: What the person should do about it ('' when there is nothing to do).
        """
        self.code = code or self.default_code
        self.message = message
        self.fix = fix
        super().__init__(self.describe())

    def describe(self) -> str:
        """One human sentence or two: the code, what happened, and what to do."""
        text = f"[{self.code}] {self.message}"
        if self.fix:
            text += f" Fix: {self.fix}"
        return text


class ModelError(AgentError):
    """A model is missing, truncated, corrupt or of the wrong kind."""

    default_code = "model_error"


class AsrError(AgentError):
    """Speech recognition failed."""

    default_code = "asr_error"


class LlmError(AgentError):
    """The language model failed or timed out."""

    default_code = "llm_error"


class TtsError(AgentError):
    """Speech synthesis failed."""

    default_code = "tts_error"


class DeviceError(AgentError):
    """An audio device is missing, vanished or failed mid-stream."""

    default_code = "device_error"


class AudioFileError(AgentError):
    """An audio file could not be read (not audio, truncated, unsupported)."""

    default_code = "audio_file_error"


class SettingsError(AgentError):
    """A setting has an invalid value."""

    default_code = "settings_error"


class DesktopError(AgentError):
    """A desktop integration cannot work: a global key's text, the X server, a grab taken."""

    default_code = "desktop_error"


class McpError(AgentError):
    """A tool server of your own (MCP) cannot be read, started or called."""

    default_code = "mcp_error"


class NotFoundAnswer(AgentError):
    """What a request names is not there (no such application, no such folder).

    Its message is the whole answer, said as it is: asking the model again cannot find
    what is not installed (``core.turns.tool_desk.respond`` marks it ``final``).
    """

    default_code = "not_found"
