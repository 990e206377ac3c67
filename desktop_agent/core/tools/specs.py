"""The built-in tools' specs, as the catalog (``core.tools.catalog``) defines them.

Two views kept for the code that needs only names and schemas (the turn machine, the
registry's callers, tests): nothing is defined here. A new tool is a catalog entry.

Arguments are kept as the user said them ("5 minutes", "tomorrow at 9"): a small model
copies words from the request far more reliably than it computes seconds or dates, and the
application then parses them deterministically (``core.tools.when``, ``core.tools.calc``,
``core.tools.units``).
"""

from __future__ import annotations

from typing import Final

from desktop_agent.core.ports import ToolSpec
from desktop_agent.core.tools.catalog import BUILTIN

BUILTIN_SPECS: Final[tuple[ToolSpec, ...]] = BUILTIN.specs
"""Every built-in tool, reads first."""

WRITE_TOOLS: Final = BUILTIN.write_names
"""Names of the tools that change things (they run only after a confirmed read-back)."""
