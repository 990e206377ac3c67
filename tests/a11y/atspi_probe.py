"""What a screen reader sees of one application, read through AT-SPI, as JSON lines.

Run by the *system* Python (``/usr/bin/python3``: Debian python3-gi + gir1.2-atspi-2.0; the
project's virtualenv has no ``gi``), on the accessibility bus of the session bus named by
``DBUS_SESSION_BUS_ADDRESS``::

    /usr/bin/python3 atspi_probe.py PID     (or -: any app until told by {"cmd": "pid"})

It prints one JSON object per line on stdout:

* ``{"ready": true}`` once its event listeners are registered;
* ``{"event": TYPE, "detail1": .., "detail2": .., "data": .., "source": NODE}`` for every
  event the application sends (but the structural churn in ``IGNORED``, unless
  ``ATSPI_PROBE_ALL=1``); ``NODE`` is
  ``{"name", "role", "parent"}`` (the parent's name) of the object that sent it;
* ``{"pid": N, "seq": M}`` in answer to ``{"cmd": "pid", "pid": N, "seq": M}``, after
  the events that app sent before (a probe started with ``-`` keeps them until told: the
  screen reader is running before the app starts);
* ``{"found": BOOL, "seq": N}`` in answer to ``{"cmd": "find", "seq": N}``: whether the
  application is registered on the bus yet;
* ``{"synced": true, "seq": N}`` in answer to ``{"cmd": "sync", "seq": N}``, after every
  event the app sent before it answered a call made then;
* ``{"tree": NODE, "seq": N}`` in answer to a ``{"cmd": "tree", "seq": N}`` line on stdin,
  where each ``NODE`` has name, role, description, states, text (Text interface), value,
  actions with key bindings, relations (``labelled-by``: the labels' names), object
  attributes, the path of child indices from the window, and children.

``{"cmd": "quit"}`` (or end of stdin) ends it. Nothing here imports the project: it is the
assistive technology's side of the bus, as independent of Qt as a screen reader is.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
import warnings

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib  # noqa: E402

warnings.simplefilter("ignore", DeprecationWarning)  # get_action_name: no successor in 2.46

EVENTS = ("object:", "window:", "focus:")
"""Every event class a screen reader can listen to (nothing the app sends is missed)..."""
IGNORED = ("object:children-changed", "object:bounds-changed", "object:visible-data-changed",
           "object:text-caret-moved", "object:row-", "object:column-", "object:model-changed",
           "object:property-change:accessible-parent", "object:text-bounds-changed")
"""...except the structural churn of tables and layouts, dropped before any lookup."""
MAX_NODES = 600
"""A bound on one tree dump (the window has about two hundred objects)."""
MAX_TEXT = 4000
"""Characters of an object's text kept in a dump (a screen reader reads the rest on demand)."""


def _emit(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def _safe(fn, default=None):  # noqa: ANN001, ANN202 - tiny helper over D-Bus calls
    try:
        return fn()
    except GLib.Error:
        return default


def _brief(acc: Atspi.Accessible | None) -> dict[str, object]:
    if acc is None:
        return {}
    parent = _safe(acc.get_parent)
    return {"name": _safe(acc.get_name, ""), "role": _safe(acc.get_role_name, ""),
            "parent": _safe(parent.get_name, "") if parent is not None else ""}


def _states(acc: Atspi.Accessible) -> list[str]:
    state_set = _safe(acc.get_state_set)
    if state_set is None:
        return []
    return sorted(Atspi.StateType(s).value_nick for s in state_set.get_states())


def _node(acc: Atspi.Accessible, path: list[int], budget: list[int]) -> dict[str, object]:
    budget[0] -= 1
    node: dict[str, object] = {
        "name": _safe(acc.get_name, ""),
        "role": _safe(acc.get_role_name, ""),
        "description": _safe(acc.get_description, ""),
        "states": _states(acc),
        "path": path,
    }
    interfaces = set(_safe(acc.get_interfaces, []) or [])
    if "Text" in interfaces:
        count = _safe(lambda: Atspi.Text.get_character_count(acc), 0)
        node["text"] = _safe(lambda: Atspi.Text.get_text(acc, 0, min(count, MAX_TEXT)), "")
    if "Value" in interfaces:
        node["value"] = _safe(lambda: Atspi.Value.get_current_value(acc))
    if "Action" in interfaces:
        n = _safe(lambda: Atspi.Action.get_n_actions(acc), 0)
        node["actions"] = [{"name": _safe(lambda i=i: Atspi.Action.get_action_name(acc, i), ""),
                            "keys": _safe(lambda i=i: Atspi.Action.get_key_binding(acc, i), "")}
                           for i in range(n)]
    attributes = _safe(acc.get_attributes, {}) or {}
    if attributes:
        node["attributes"] = dict(attributes)
    relations = _safe(acc.get_relation_set, []) or []
    node["relations"] = {
        Atspi.RelationType(r.get_relation_type()).value_nick:
            [_safe(r.get_target(j).get_name, "") for j in range(r.get_n_targets())]
        for r in relations}
    children = []
    count = _safe(acc.get_child_count, 0)
    # A table's or list's cells are data, not controls: keep the first few.
    limit = 8 if node["role"] in ("table", "tree table", "list", "tree") else count
    for i in range(min(count, limit)):
        if budget[0] <= 0:
            break
        child = _safe(lambda i=i: acc.get_child_at_index(i))
        if child is not None:
            children.append(_node(child, [*path, i], budget))
    node["children"] = children
    node["child_count"] = count
    return node


class Probe:
    """Listens to one application's events and dumps its tree on request."""

    def __init__(self, pid: int | None) -> None:
        self.pid = pid
        self.early: list[tuple[int, dict[str, object]]] = []
        """Events heard before the app's pid was known, with their sender's pid."""
        self.app: Atspi.Accessible | None = None
        self.loop = GLib.MainLoop()
        self.listener = Atspi.EventListener.new(self._on_event)
        self.everything = bool(os.environ.get("ATSPI_PROBE_ALL"))
        """ATSPI_PROBE_ALL=1: keep even the IGNORED events (to see what a change sends)."""
        for kind in EVENTS:
            self.listener.register(kind)

    def _find_app(self) -> Atspi.Accessible | None:
        if self.app is not None:
            return self.app
        desktop = Atspi.get_desktop(0)
        for i in range(_safe(desktop.get_child_count, 0)):
            app = _safe(lambda i=i: desktop.get_child_at_index(i))
            if app is not None and _safe(app.get_process_id, -1) == self.pid:
                self.app = app
        return self.app

    def _on_event(self, event: Atspi.Event) -> None:
        if not self.everything and event.type.startswith(IGNORED):
            return
        source = event.source
        pid = -1 if source is None else _safe(source.get_process_id, -1)
        if self.pid is not None and pid != self.pid:
            return
        data = event.any_data
        if isinstance(data, Atspi.Accessible):
            data = _brief(data)
        elif not isinstance(data, (str, int, float, bool, type(None))):
            data = str(data)
        line = {"event": event.type, "detail1": event.detail1, "detail2": event.detail2,
                "data": data, "source": _brief(source)}
        if self.pid is None:
            self.early.append((pid, line))
        else:
            _emit(line)

    def _on_stdin(self, _fd: int, _cond: GLib.IOCondition) -> bool:
        line = sys.stdin.readline()
        if not line:
            self.loop.quit()
            return False
        cmd = json.loads(line)
        if cmd.get("cmd") == "quit":
            self.loop.quit()
            return False
        try:
            self._answer(cmd)
        except Exception:  # noqa: BLE001 - report it to the test and keep serving
            _emit({"tree": None, "seq": cmd.get("seq"), "error": traceback.format_exc()})
        return True

    def _answer(self, cmd: dict[str, object]) -> None:
        if cmd.get("cmd") == "pid":
            self.pid = int(cmd["pid"])
            for pid, line in self.early:
                if pid == self.pid:
                    _emit(line)
            self.early.clear()
            _emit({"pid": self.pid, "seq": cmd.get("seq")})
        elif cmd.get("cmd") == "find":
            _emit({"found": self._find_app() is not None, "seq": cmd.get("seq")})
        elif cmd.get("cmd") == "sync":
            self._sync(cmd.get("seq"))
        elif cmd.get("cmd") == "tree":
            app = self._find_app()
            tree = None
            if app is not None:
                windows = [_node(w, [i], [MAX_NODES]) for i in range(app.get_child_count())
                           if (w := _safe(lambda i=i: app.get_child_at_index(i))) is not None]
                tree = {"name": _safe(app.get_name, ""), "role": "application",
                        "children": windows}
            _emit({"tree": tree, "seq": cmd.get("seq")})

    def _sync(self, seq: object) -> None:
        """Answer once every event the app sent before answering a call of ours is out.

        The app sends its events and its replies on one connection, so they arrive in
        order; the call's reply is read at once, the events queued before it are
        dispatched by the main loop, and a low-priority idle callback runs after them.
        """
        app = self._find_app()
        if app is not None:
            frame = _safe(lambda: app.get_child_at_index(0))
            if frame is not None:  # extents are never cached: a real round trip
                _safe(lambda: Atspi.Component.get_extents(frame, Atspi.CoordType.SCREEN))

        def done() -> bool:
            _emit({"synced": True, "seq": seq})
            return False

        GLib.idle_add(done, priority=GLib.PRIORITY_LOW)

    def run(self) -> None:
        """Serve until told to quit."""
        GLib.io_add_watch(sys.stdin.fileno(), GLib.IO_IN | GLib.IO_HUP, self._on_stdin)
        _emit({"ready": True})
        self.loop.run()


def main() -> int:
    """Entry point: ``atspi_probe.py PID``."""
    Atspi.init()
    Probe(None if sys.argv[1] == "-" else int(sys.argv[1])).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
