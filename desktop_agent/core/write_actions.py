"""Write actions: a tool call that changes things, validated and normalised, with its read-back.

The model proposes; the application validates (``prepare``), reads the action back from its
structured form (never the model's wording), and executes exactly that stored action once the
user confirms (see ``core.confirm`` and the turn machine's write path).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class PreparedAction:
    """A validated write, ready to be read back and, once confirmed, executed as it is."""

    tool: str
    args: Mapping[str, Any]
    """Normalised, JSON-able arguments: exactly what executes."""
    read_back: str
    """The confirmation question, generated from ``tool`` and ``args``."""
