"""Tools the assistant can call (pure, stdlib only).

The catalog (one ``ToolDef`` per tool, read by everything else), the router and the
built-in tools' offer rules, tools by meaning for the requests no rule reads, arguments
from the user's words, the decision protocol every LLM backend shares (note, call schema,
parsing), the registry rules, the write path (read back, confirm), the calculator, units
and time phrases, the desktop tools' rules (volume, media keys, open an application or a
place, read the selection, copy the last answer, type into the focused window), and the
rule that no reply claims an action no tool took, and a request mended while it was said
("a timer for ten, no, fifteen minutes").
"""

__all__ = [
    "answer",
    "args",
    "calc",
    "calc_verbs",
    "calc_words",
    "catalog",
    "catalog_desktop",
    "claimed",
    "clipboard",
    "confirm",
    "decision",
    "launch",
    "media",
    "offers",
    "registry",
    "repair",
    "router",
    "semantic",
    "slips",
    "specs",
    "tool_def",
    "type_text",
    "units",
    "volume",
    "weekday",
    "when",
    "when_parts",
    "words",
    "words_spans",
    "write_actions",
]
