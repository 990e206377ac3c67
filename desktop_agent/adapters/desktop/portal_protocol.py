"""The GlobalShortcuts portal's rules, without a bus: names, paths, triggers, signals, outcomes.

Everything here is pure (stdlib only, no I/O, no clock), so the client in
``portal_shortcuts.py`` keeps only the talking, and these rules are tested in microseconds.

- ``preferred_trigger("Ctrl+Alt+Space") == "CTRL+ALT+space"``: the global key setting's text
  (``[shortcuts] global_push_to_talk``, Qt's words) in the shortcuts specification's form
  (modifiers CTRL, ALT, SHIFT, LOGO and one xkbcommon keysym name, joined by ``+``). Only a
  hint: the desktop (or the user, in its dialog) chooses the key. ``None`` when the setting
  refuses the text.
- ``request_path(":1.42", "t1")``: the Request object a call with ``handle_token`` "t1" will
  create, so its ``Response`` can be subscribed to *before* the call (the portal docs' advice:
  a fast portal may answer before the reply to the call arrives).
- ``shortcut_edge(...)``: an ``Activated``/``Deactivated`` signal from the portal for our
  session and our shortcut -> "press"/"release"; anything else -> None. ``HoldFilter`` then
  keeps one release after each press (no double press, no release without a press, a release
  at the end).
- ``request_problem(step, code)``: a Request's response code as a problem value: 1 = the user
  said no (``portal_bind_refused``), 2 = the portal failed (``portal_failed``).

Problems are ``DesktopError`` values (code, message, fix), never raised at the caller:
``portal_no_jeepney``, ``portal_no_session_bus``, ``portal_missing``,
``portal_no_global_shortcuts``, ``portal_bind_refused``, ``portal_failed``, ``portal_lost``.
Where the portal cannot give a global key, the fix is the ``desktop-agent ptt`` command bound
in the desktop or compositor (docs/anywhere.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from desktop_agent.core.desktop.shortcut import parse_shortcut
from desktop_agent.core.errors import DesktopError

BUS_NAME: Final = "org.freedesktop.portal.Desktop"
OBJECT_PATH: Final = "/org/freedesktop/portal/desktop"
SHORTCUTS_IFACE: Final = "org.freedesktop.portal.GlobalShortcuts"
REQUEST_IFACE: Final = "org.freedesktop.portal.Request"
SESSION_IFACE: Final = "org.freedesktop.portal.Session"
REGISTRY_IFACE: Final = "org.freedesktop.host.portal.Registry"
"""Tells the portal which app a host (not Flatpak) process is: xdg-desktop-portal 1.19.4+."""

SHORTCUT_ID: Final = "push-to-talk"
DESCRIPTION: Final = "Push to talk"

RESPONSE_OK: Final = 0
RESPONSE_CANCELLED: Final = 1
"""The user dismissed the portal's dialog (KDE's and GNOME's shortcut dialogs have Cancel)."""

Edge = Literal["press", "release"]

PTT_FIX: Final = ("use `desktop-agent ptt start` and `desktop-agent ptt stop` (or `ptt toggle`) "
                  "bound to a key in your desktop or compositor instead; see docs/anywhere.md.")
_NOT_APP_ERRORS: Final = frozenset({
    "org.freedesktop.DBus.Error.UnknownMethod",
    "org.freedesktop.DBus.Error.UnknownInterface",
    "org.freedesktop.DBus.Error.UnknownObject",
})
"""What a portal without the host Registry (before 1.19.4) answers Register with."""
_NO_INTERFACE_ERRORS: Final = _NOT_APP_ERRORS | {
    "org.freedesktop.DBus.Error.InvalidArgs",  # GDBus: "No such interface ..." on Properties.Get
    "org.freedesktop.DBus.Error.UnknownProperty",
}
_NO_SERVICE_ERRORS: Final = frozenset({
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
    "org.freedesktop.DBus.Error.NoReply",
    "org.freedesktop.DBus.Error.TimedOut",
})


# -- the trigger -----------------------------------------------------------------------------
_SPEC_MODIFIERS: Final = {"Control": "CTRL", "Alt": "ALT", "Shift": "SHIFT", "Super": "LOGO"}
"""core.desktop.shortcut's modifier names -> the shortcuts specification's (xkbcommon's)."""
_TOKEN: Final = re.compile(r"[A-Za-z0-9_]+")


def preferred_trigger(text: str) -> str | None:
    """A key's text in the shortcuts specification's form, or None when it cannot be said.

    'Ctrl+Alt+Space' -> 'CTRL+ALT+space', 'Super+F9' -> 'LOGO+F9', 'Ctrl+Shift+A' ->
    'CTRL+SHIFT+a'. The text is read as the global key setting is
    (``core.desktop.shortcut.parse_shortcut``: Qt's words, X keysym names, which are
    xkbcommon's); what it refuses (modifiers alone, a bare typing key, an unknown key)
    proposes nothing, and the user picks a key in the desktop's dialog.
    """
    try:
        shortcut = parse_shortcut(text)
    except DesktopError:
        return None
    return "+".join([*(_SPEC_MODIFIERS[m] for m in shortcut.modifiers), shortcut.keysym])


# -- object paths ----------------------------------------------------------------------------
def sender_element(unique_name: str) -> str:
    """A unique bus name as an object path element: ':1.42' -> '1_42'."""
    return unique_name.removeprefix(":").replace(".", "_")


def request_path(unique_name: str, token: str) -> str:
    """The Request object a call with ``handle_token=token`` from ``unique_name`` creates."""
    return f"{OBJECT_PATH}/request/{sender_element(unique_name)}/{token}"


def session_path(unique_name: str, token: str) -> str:
    """The Session object CreateSession with ``session_handle_token=token`` creates."""
    return f"{OBJECT_PATH}/session/{sender_element(unique_name)}/{token}"


def is_token(token: str) -> bool:
    """True for a valid object path element (what a handle token must be)."""
    return bool(_TOKEN.fullmatch(token))


# -- signals ---------------------------------------------------------------------------------
def shortcut_edge(sender: str, interface: str | None, member: str | None,
                  body: Sequence[Any], *, portal_owner: str, session_handle: str,
                  shortcut_id: str = SHORTCUT_ID) -> Edge | None:
    """'press' for our shortcut's Activated, 'release' for its Deactivated, else None.

    Args:
        sender: the unique bus name that sent the signal.
        interface: the signal's interface.
        member: the signal's name.
        body: its arguments: (session_handle o, shortcut_id s, timestamp t, options a{sv}).
        portal_owner: the portal's unique name. A signal sent straight to us by any other
            program on the bus is not a key press: only the portal speaks for the keyboard.
        session_handle: our session (another session's shortcut is not ours).
        shortcut_id: our shortcut's id.
    """
    if not sender or sender != portal_owner:
        return None
    if interface != SHORTCUTS_IFACE or member not in ("Activated", "Deactivated"):
        return None
    if len(body) < 2 or body[0] != session_handle or body[1] != shortcut_id:
        return None
    return "press" if member == "Activated" else "release"


class HoldFilter:
    """One release after each press: what the callbacks see, whatever the portal sends.

    A second Activated without a Deactivated between (a desktop that repeats it while the
    key is held) is dropped, as is a Deactivated with nothing held; ``release_all`` gives the
    release a hold still owes (the app stops, the portal goes away).
    """

    def __init__(self) -> None:
        """Start with the key up."""
        self.held = False

    def feed(self, edge: Edge) -> Edge | None:
        """The edge to report for ``edge`` (None: drop it)."""
        if (edge == "press") == self.held:
            return None
        self.held = edge == "press"
        return edge

    def release_all(self) -> Edge | None:
        """'release' if the key is down (and now up), else None."""
        return self.feed("release") if self.held else None


# -- results ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class PortalBinding:
    """The push-to-talk shortcut the portal holds for us (what the window can show)."""

    session_handle: str
    """Our GlobalShortcuts session's object path."""
    trigger_description: str
    """The desktop's words for the key, e.g. 'Ctrl+Alt+Space' ('' when it gives none)."""
    newly_bound: bool
    """True when this start asked for it (BindShortcuts); False when the desktop already
    had it from an earlier start (ListShortcuts), so no dialog was shown."""
    version: int
    """The portal's GlobalShortcuts interface version (1 or 2)."""


def shortcut_entries(results: Mapping[str, Any]) -> dict[str, dict[str, Any]] | None:
    """A response's ``shortcuts`` (a(sa{sv})) as id -> properties; None when it has none.

    Accepts jeepney's variants (('a(sa{sv})', [...]) and ('s', text) inside) or plain values.
    """
    value = results.get("shortcuts")
    if value is None:
        return None
    entries = unwrap(value)
    found: dict[str, dict[str, Any]] = {}
    for entry in entries:
        shortcut_id, props = entry[0], entry[1]
        found[str(shortcut_id)] = {k: unwrap(v) for k, v in dict(props).items()}
    return found


def unwrap(value: Any) -> Any:
    """A D-Bus variant's value (jeepney gives a variant as (signature, value))."""
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
        return value[1]
    return value


def trigger_description(entries: Mapping[str, Mapping[str, Any]] | None,
                        shortcut_id: str = SHORTCUT_ID) -> str:
    """The desktop's words for our shortcut's key ('' when it says none)."""
    props = (entries or {}).get(shortcut_id, {})
    text = props.get("trigger_description", "")
    return text if isinstance(text, str) else ""


# -- problems --------------------------------------------------------------------------------
def register_failure_is_expected(error_name: str) -> bool:
    """True when Register failed as expected: a portal without the host Registry (before
    1.19.4), or no portal at all (the next step reports that)."""
    return error_name in _NOT_APP_ERRORS or error_name in _NO_SERVICE_ERRORS


def no_jeepney() -> DesktopError:
    """jeepney (the D-Bus client) is not installed."""
    return DesktopError("portal_no_jeepney",
                      "jeepney is not installed, so the desktop portal's global push-to-talk "
                      "key is off.", "install it: pip install jeepney==0.9.0 "
                      "(scripts/setup.sh does).")


def no_session_bus(detail: str) -> DesktopError:
    """No D-Bus session bus to reach the portal on."""
    return DesktopError("portal_no_session_bus",
                      f"There is no D-Bus session bus ({detail}), so the desktop portal's global "
                      "push-to-talk key is off.",
                      "start desktop_agent from your desktop session, or " + PTT_FIX)


def missing_portal(error_name: str, detail: str) -> DesktopError:
    """Why asking the portal's GlobalShortcuts for its version failed, as a problem."""
    if error_name in _NO_INTERFACE_ERRORS or error_name.endswith(
            (".UnknownInterface", ".UnknownProperty")):  # some services use their own prefix
        return DesktopError(
            "portal_no_global_shortcuts",
            "Your desktop's portal has no global shortcuts (sway and other wlroots "
            "compositors, niri, COSMIC and Cinnamon have none), so the app cannot get a "
            "global push-to-talk key from it.", PTT_FIX)
    if error_name in _NO_SERVICE_ERRORS or error_name.startswith(
            "org.freedesktop.DBus.Error.Spawn"):
        return DesktopError(
            "portal_missing",
            f"No desktop portal answers on the session bus ({detail or error_name}), so the "
            "global push-to-talk key is off.",
            "install xdg-desktop-portal and your desktop's portal (xdg-desktop-portal-kde, "
            "-gnome or -hyprland), or " + PTT_FIX)
    return failed("say which global shortcuts it has", f"{error_name}: {detail}")


STEPS: Final = {"create": "start a shortcuts session", "list": "list the app's shortcuts",
                "bind": "bind the push-to-talk shortcut"}
"""The words a ``portal_failed`` message uses for each step of ``request_problem``."""


def request_problem(step: str, code: int,
                    failed_as: Callable[[str, str], DesktopError] | None = None
                    ) -> DesktopError | None:
    """A Request's response code as a problem (None for 0, success).

    Args:
        step: 'create', 'list' or 'bind' (a key of ``STEPS``), or the words of another step.
        code: the Response signal's code: 0 success, 1 cancelled by the user, 2 other.
        failed_as: what makes the problem of a failed step (default ``failed``).
    """
    if code == RESPONSE_OK:
        return None
    if code == RESPONSE_CANCELLED and step == "bind":
        return refused()
    return (failed_as or failed)(STEPS.get(step, step), f"response {code}")


def refused() -> DesktopError:
    """The user declined the shortcut in the desktop's dialog (or left it out)."""
    return DesktopError(
        "portal_bind_refused",
        "The push-to-talk shortcut was declined in the desktop's dialog, so there is no global "
        "push-to-talk key.", "start desktop_agent again to be asked again, or " + PTT_FIX)


def failed(step: str, detail: str) -> DesktopError:
    """The portal answered a step with an error (response 2, or a D-Bus error)."""
    return DesktopError(
        "portal_failed",
        f"The desktop portal could not {step} ({detail}), so there is no global push-to-talk "
        "key.", "if it says the app is unknown, run `desktop-agent install-desktop-entry` "
        "and start desktop_agent again; otherwise " + PTT_FIX)


def lost(detail: str) -> DesktopError:
    """The portal went away or closed our session after the key was bound."""
    return DesktopError("portal_lost",
                      f"The desktop portal {detail}; the global push-to-talk key is off.",
                      "restart desktop_agent, or " + PTT_FIX)
