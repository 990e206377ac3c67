"""Tools the assistant can call (pure, stdlib only).

Specs, the router, arguments from the user's words, the registry rules, the write path
(read back, confirm), the calculator, units and time phrases.
"""

__all__ = [
    "answer",
    "args",
    "calc",
    "calc_words",
    "confirm",
    "registry",
    "router",
    "specs",
    "units",
    "when",
    "when_parts",
    "write_actions",
]
