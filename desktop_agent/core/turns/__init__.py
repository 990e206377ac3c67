"""The turn-taking state machine: a pure reducer."""

__all__ = [
    "barge_in",
    "base",
    "chunking",
    "commands",
    "context",
    "events",
    "failures",
    "machine",
    "policy",
    "recording",
    "reflect",
    "reply",
    "reply_output",
    "spoken_units",
    "states",
    "stopping",
    "telemetry",
    "tool_desk",
    "user_input",
    "write_path",
]
