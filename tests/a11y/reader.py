"""What the AT-SPI tests ask of a session: controls, announcements, focus, printed tables."""

from __future__ import annotations

from typing import Any, Final

from tests.a11y.session import A11ySession, Event, walk

DATA_ROLES: Final = frozenset({"table cell", "table column header", "table row header",
                               "list item", "tree item", "scroll bar"})
"""Parts a screen reader names from their content or position, not controls of their own."""
STANDARD_ACTIONS: Final = frozenset({"SetFocus"})
POLITE, ASSERTIVE = 1, 2
"""detail1 of ``object:announcement``."""


def controls(tree: dict[str, Any]) -> list[dict[str, Any]]:
    """Showing objects a user operates or tabs to (focusable, or with an action)."""
    out = []
    for node in walk(tree):
        if node.get("role") in DATA_ROLES or "showing" not in node.get("states", ()):
            continue
        actions = {a["name"] for a in node.get("actions", ())} - STANDARD_ACTIONS
        if "focusable" in node["states"] or actions:
            out.append(node)
    return out


def labels(node: dict[str, Any]) -> str:
    """The names of the objects that label ``node`` (a screen reader says them first)."""
    return " / ".join(node.get("relations", {}).get("labelled-by", []))


def control_problems(found: list[dict[str, Any]]) -> list[str]:
    """Controls without a name, without a control's role, or shown but not enabled."""
    problems = []
    for c in found:
        if not c["name"]:
            problems.append(f"no name: {c['role']} at {c['path']} labelled by {labels(c)!r}")
        if c["role"] in ("unknown", "invalid", "filler", "panel"):
            problems.append(f"no control role: {c['name']!r} is a {c['role']}")
        if not {"enabled", "sensitive"} <= set(c["states"]):
            problems.append(f"not enabled while shown: {c['name']!r}")
    return problems


def controls_table(found: list[dict[str, Any]]) -> str:
    """The controls as a printed table: role, name, labelled by, states, keys."""
    rows = [(c["role"], c["name"], labels(c), ",".join(
             s for s in c["states"] if s not in ("enabled", "sensitive", "visible", "showing")),
             " ".join(a["keys"] for a in c.get("actions", ()) if a["keys"]))
            for c in found]
    return table("Controls as AT-SPI presents them",
                 ("role", "name", "labelled by", "states", "keys"), rows)


def table(title: str, header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    """A plain-text table for the test output."""
    widths = [max(len(str(r[i])) for r in (header, *rows)) for i in range(len(header))]
    line = " | ".join(f"{{:{w}}}" for w in widths)
    return "\n".join([title, line.format(*header), "-+-".join("-" * w for w in widths),
                      *(line.format(*r) for r in rows)])


def announced(desktop: A11ySession, text: str, start: int, politeness: int | None = None,
              timeout_s: float = 20.0) -> Event:
    """The first announcement at or after ``start`` that contains ``text``."""
    def match(e: Event) -> bool:
        return (e["event"] == "object:announcement" and text in str(e["data"])
                and (politeness is None or e["detail1"] == politeness))
    return desktop.wait_event(match, f"an announcement containing {text!r}", start, timeout_s)


def in_order(desktop: A11ySession, start: int, *texts: str | tuple[str, int]) -> Event:
    """Announcements containing ``texts``, each after the one before; returns the last."""
    event: Event = {}
    for item in texts:
        text, politeness = item if isinstance(item, tuple) else (item, None)
        event = announced(desktop, text, start, politeness)
        start = event["at"] + 1
    return event


def focus_after(desktop: A11ySession, *keys: str, held: str = "") -> str:
    """Type ``keys``, holding ``held`` if given; return the focused object's name once settled.

    A modifier is best held by its own commands, as a person does: xdotool's ``alt+m`` sends
    all four events at once, and about one time in twenty Qt's menu bar then takes the
    Alt release for a lone Alt (and opens its keyboard navigation on "Agent").
    """
    start = desktop.mark()
    if held:
        desktop.keys("keydown", held)
    desktop.keys("key", *keys)
    if held:
        desktop.keys("keyup", held)
    desktop.wait_event(lambda e: e["event"].startswith("focus:"), f"focus after {keys}",
                       start)
    desktop.sync()  # a list's focused item and the list itself may both report focus
    last = desktop.last_event(lambda e: e["event"].startswith("focus:"))
    assert last is not None
    return str(last["source"]["name"])


def activate_window(desktop: A11ySession) -> str:
    """Give the window the keyboard focus (what Alt+Tab does); return the focused control."""
    desktop.keys("windowfocus", "--sync", str(desktop.window_id))
    # Without a window manager the window may already have had the focus: look from 0.
    desktop.wait_event(lambda e: e["event"] == "object:state-changed:active"
                       and e["detail1"] == 1 and e["source"]["role"] == "frame",
                       "the window becoming active", 0)
    desktop.wait_event(lambda e: e["event"].startswith("focus:"), "a focused control", 0)
    desktop.sync()
    first = desktop.last_event(lambda e: e["event"].startswith("focus:"))
    assert first is not None
    return str(first["source"]["name"])
