"""The turn-taking state machine: a pure reducer."""

__all__ = [
    "base",
    "chunking",
    "commands",
    "context",
    "events",
    "machine",
    "policy",
    "reflect",
    "reply",
    "reply_output",
    "spoken_units",
    "states",
    "telemetry",
    "tool_desk",
    "write_path",
]
