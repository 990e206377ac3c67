"""``python -m desktop_agent.cli``: the same as the ``desktop-agent`` command."""

from __future__ import annotations

from desktop_agent.cli import main

raise SystemExit(main())
