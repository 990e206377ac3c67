"""The global push-to-talk key through the desktop portal's GlobalShortcuts (jeepney, D-Bus).

``PortalGlobalKey(key_text="Ctrl+Alt+Space", on_press=..., on_release=...)`` asks the desktop
(KDE, GNOME 48+, Hyprland) for one global shortcut, "push-to-talk", and reports its
``Activated`` as a press and its ``Deactivated`` as a release: a real hold, with the key the
user chose in the desktop's own dialog. The key text is only the proposed trigger.

On its own thread, with its own connection to the session bus (``portal_bus.Link``: jeepney
0.9.0, blocking I/O that ``stop()`` interrupts; QtDBus cannot marshal the portal's
``a(sa{sv})``):

1. ``org.freedesktop.host.portal.Registry.Register(app_id)``, so a host app is known by its
   id (``adapters.paths.APP_ID``, the .desktop file's name). Portals before 1.19.4 have no
   Registry: that answer is ignored quietly, any other is logged and the steps go on.
2. the interface's ``version`` (no GlobalShortcuts -> ``portal_no_global_shortcuts``, no
   portal -> ``portal_missing``).
3. ``CreateSession``, ``ListShortcuts``, then ``BindShortcuts`` only when the session does not
   already hold "push-to-talk" (KDE restores an app's shortcuts into each new session, and a
   bind can open its dialog), so a key bound at an earlier start is reused as it is. Each
   call's ``Response`` is subscribed to before the call, on the Request path predicted from
   the unique name and the token (``portal_request.PortalRequests``).
4. signals until ``stop()``: ``Activated``/``Deactivated`` of our session and shortcut from
   the portal itself (another sender's are ignored), the session's ``Closed`` and the
   portal leaving the bus (``portal_lost``).

``stop()`` dismisses a dialog still open (``Request.Close``), closes the session
(``Session.Close``), closes the connection and joins the thread. A hold in progress gets its
release first: a press is always followed by exactly one release.

Error contract: nothing here raises to the caller. ``start()`` returns a problem known without
I/O (``portal_no_jeepney``, ``portal_no_session_bus``) or None; everything after that arrives
once through ``on_error`` and ends the thread (codes in ``portal_protocol``). The user's "no"
in the dialog is ``portal_bind_refused``.

Threads: ``start()`` and ``stop()`` run on the caller's thread (the GUI thread in the app;
``start`` takes microseconds, ``stop`` up to its timeout). ``on_press``, ``on_release``,
``on_bound`` and ``on_error`` run on the portal thread: marshal them to the GUI thread (a Qt
signal emitted there is queued to a receiver on the GUI thread). The connection belongs to the
portal thread alone.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import Any, Final

from desktop_agent.adapters.desktop import portal_protocol as rules
from desktop_agent.adapters.desktop.key_thread import KeyThread, call_safely
from desktop_agent.adapters.desktop.portal_bus import (
    BusError,
    Interrupted,
    Link,
    error_of,
    fields,
    is_name_lost,
    name_owner_rule,
)
from desktop_agent.adapters.desktop.portal_protocol import (
    BUS_NAME,
    DESCRIPTION,
    OBJECT_PATH,
    REGISTRY_IFACE,
    SESSION_IFACE,
    SHORTCUT_ID,
    SHORTCUTS_IFACE,
    Edge,
    HoldFilter,
    PortalBinding,
)
from desktop_agent.adapters.desktop.portal_request import Halt, PortalRequests
from desktop_agent.adapters.paths import APP_ID
from desktop_agent.core.errors import DesktopError

_LOGGER = logging.getLogger(__name__)

_RESPONSE_S: Final = 60.0
"""How long CreateSession and ListShortcuts may take to respond (no dialog: seconds at most).
BindShortcuts waits for the user as long as the app runs."""
_CLOSE_S: Final = 2.0


class PortalGlobalKey:
    """The push-to-talk shortcut of the desktop portal, as press and release callbacks.

    Runs on: ``start``/``stop`` on the caller's thread; callbacks on the portal thread.
    """

    def __init__(self, *, on_press: Callable[[], None], on_release: Callable[[], None],
                 on_bound: Callable[[PortalBinding], None] | None = None,
                 on_error: Callable[[DesktopError], None] | None = None,
                 key_text: str = "", app_id: str = APP_ID, bus_address: str | None = None,
                 parent_window: str = "", reply_timeout_s: float = 25.0,
                 shortcut_id: str = SHORTCUT_ID, description: str = DESCRIPTION) -> None:
        """Prepare; nothing is opened until ``start()``.

        Args:
            on_press, on_release: it went down, came up (once per hold); portal thread.
            on_bound: the desktop holds the shortcut (bound now or at an earlier start);
                again when the desktop says its key changed. Runs on the portal thread.
            on_error: a problem ended the portal thread; at most once per ``start``.
            key_text: the key to propose, in Qt's words ('Ctrl+Alt+Space'); '' proposes none.
            app_id: the app id told to the portal (the installed .desktop file's name).
            bus_address: the session bus (default: ``DBUS_SESSION_BUS_ADDRESS``).
            parent_window: the dialog's window ('x11:<hex id>', 'wayland:<handle>', '').
            reply_timeout_s: how long a D-Bus call may take to be answered.
            shortcut_id, description: the shortcut's id and its words in the desktop's
                dialog ('push-to-talk'; dictation's key is 'dictate').
        """
        self._on_press = on_press
        self._on_release = on_release
        self._on_bound = on_bound
        self._on_error = on_error
        self.trigger = rules.preferred_trigger(key_text) if key_text else None
        """The trigger proposed to the desktop ('CTRL+ALT+space'), None for none."""
        self.app_id = app_id
        self._bus_address = bus_address
        self._parent_window = parent_window
        self._reply_timeout_s = reply_timeout_s
        self._id, self._description = shortcut_id, description
        self._worker = KeyThread()
        self._reset()

    def _reset(self) -> None:
        """What one run of the portal thread owns, fresh."""
        self._link: Link | None = None
        self._portal_owner = ""
        self._session = ""
        self._session_closed = False
        self._requests = PortalRequests()
        self._hold = HoldFilter()
        self._version = 0

    @property
    def running(self) -> bool:
        """True while the portal thread runs."""
        return self._worker.running

    @property
    def session_handle(self) -> str:
        """Our session's object path while one is open ('' otherwise)."""
        return self._session

    def start(self) -> DesktopError | None:
        """Start the portal thread; a problem known without I/O, or None.

        Runs on: the caller's thread (returns at once; the steps run on the portal thread).
        """
        if self.running:
            return None
        if self._worker.started:
            self.stop()  # it ended on its own (a problem): start afresh
        try:
            import jeepney  # noqa: F401 - only whether it is there
        except ImportError:
            return rules.no_jeepney()
        address = self._bus_address
        if address is None:
            address = os.environ.get("DBUS_SESSION_BUS_ADDRESS", "")
        if not address:
            return rules.no_session_bus("DBUS_SESSION_BUS_ADDRESS is not set")
        self._reset()
        self._worker.start(self._run, "portal-global-key", address)
        return None

    def stop(self, timeout_s: float = 5.0) -> bool:
        """Close the session and the connection, end the thread; True when it ended in time.

        A hold in progress gets its release first. Safe to call twice, or before ``start``.
        Runs on: the caller's thread. From a callback (the portal thread) it only asks the
        thread to end after the callback and returns False: it cannot wait for itself.
        """
        return self._worker.stop(timeout_s)

    # -- the portal thread ------------------------------------------------------------------
    def _run(self, address: str) -> None:
        problem: DesktopError | None = None
        try:
            try:
                self._link = Link(address, self._worker.wake_fd, timeout_s=self._reply_timeout_s)
            except Exception as exc:  # noqa: BLE001 - a bad address, no socket, auth refused
                raise Halt(rules.no_session_bus(f"{address!r} does not answer: {exc}")) from exc
            self._bind_once(self._link)
            while True:
                link = self._link
                self._dispatch(link.backlog.popleft() if link.backlog else link.receive(None))
        except Interrupted:
            pass  # stop(): not a problem
        except Halt as halt:
            problem = halt.problem
        except TimeoutError as exc:
            problem = rules.failed("answer in time", str(exc) or "no reply")
        except BusError as exc:
            problem = rules.failed("be reached on the session bus", str(exc))
        except Exception as exc:  # noqa: BLE001 - the bus went away, or a reply made no sense
            if not isinstance(exc, OSError):
                _LOGGER.exception("the portal global key's thread failed")
            problem = rules.lost(f"connection failed ({exc})")
        self._report(self._hold.release_all())
        self._close()
        if problem is not None:
            _LOGGER.warning("%s", problem.describe())
            if self._on_error is not None:
                call_safely(self._on_error, problem)

    def _bind_once(self, link: Link) -> None:
        """Register, check the interface, open a session, bind the shortcut unless bound."""
        from jeepney import DBusAddress, MatchRule, Properties, new_method_call

        registry = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=REGISTRY_IFACE)
        error = error_of(link.call(new_method_call(registry, "Register", "sa{sv}",
                                                   (self.app_id, {}))))
        if error is not None and not rules.register_failure_is_expected(error[0]):
            _LOGGER.warning("the desktop portal did not register the app id %s (%s: %s)",
                            self.app_id, *error)
        shortcuts = DBusAddress(OBJECT_PATH, bus_name=BUS_NAME, interface=SHORTCUTS_IFACE)
        try:
            reply = link.call(Properties(shortcuts).get("version"))
        except TimeoutError as exc:
            raise Halt(rules.missing_portal("org.freedesktop.DBus.Error.TimedOut",
                                             f"no answer in {self._reply_timeout_s:g} s")) from exc
        error = error_of(reply)
        if error is not None:
            raise Halt(rules.missing_portal(*error))
        self._version = int(rules.unwrap(reply.body[0]))
        self._portal_owner = str(link.bus("GetNameOwner", "s", (BUS_NAME,))[0])
        self._requests.portal_owner = self._portal_owner
        # Subscribed before the session exists, so no press can come before its rule.
        link.add_match(MatchRule(type="signal", sender=BUS_NAME, interface=SHORTCUTS_IFACE))
        link.add_match(name_owner_rule(BUS_NAME))

        session_token = self._requests.token()
        results = self._requests.call(link, "create", lambda token: new_method_call(
            shortcuts, "CreateSession", "a{sv}",
            ({"handle_token": ("s", token), "session_handle_token": ("s", session_token)},)),
            _RESPONSE_S)
        self._session = str(rules.unwrap(results.get("session_handle", ""))) or \
            rules.session_path(link.unique_name, session_token)
        link.add_match(MatchRule(type="signal", sender=BUS_NAME, interface=SESSION_IFACE,
                                 member="Closed", path=self._session))
        listed = self._listed(link, lambda token: new_method_call(
            shortcuts, "ListShortcuts", "oa{sv}",
            (self._session, {"handle_token": ("s", token)})))
        if listed is not None and self._id in listed:
            # Listed = live in this session: ListShortcuts reports the session's own shortcuts
            # (xdp-kde loads the app's saved ones at CreateSession). Not bound again: a bind
            # can open the desktop's dialog (every one did, on older Plasma).
            self._bound(listed, newly=False)
            return
        props: dict[str, tuple[str, str]] = {"description": ("s", self._description)}
        if self.trigger:
            props["preferred_trigger"] = ("s", self.trigger)
        results = self._requests.call(link, "bind", lambda token: new_method_call(
            shortcuts, "BindShortcuts", "oa(sa{sv})sa{sv}",
            (self._session, [(self._id, props)], self._parent_window,
             {"handle_token": ("s", token)})), None)  # the user answers a dialog: no limit
        bound = rules.shortcut_entries(results)
        if bound is not None and self._id not in bound:
            raise Halt(rules.refused())  # the dialog let the user leave it out
        self._bound(bound, newly=True)

    def _listed(self, link: Link, make: Callable[[str], Any]) -> dict[str, dict[str, Any]] | None:
        """The app's shortcuts the desktop already holds; None when it cannot say."""
        try:
            results = self._requests.call(link, "list", make, _RESPONSE_S)
        except Halt as halt:
            _LOGGER.info("portal global key: ListShortcuts failed (%s); binding",
                         halt.problem.message)
            return None
        return rules.shortcut_entries(results) or {}

    def _bound(self, entries: dict[str, dict[str, Any]] | None, *, newly: bool) -> None:
        binding = PortalBinding(self._session, rules.trigger_description(entries, self._id), newly,
                                self._version)
        _LOGGER.info("portal global key bound: %s (session %s, version %d, asked now: %s)",
                     binding.trigger_description or "key not named", self._session,
                     self._version, newly)
        if self._on_bound is not None:
            call_safely(self._on_bound, binding)

    def _dispatch(self, msg: Any) -> None:
        if is_name_lost(msg, BUS_NAME, self._portal_owner):
            raise Halt(rules.lost("left the session bus (xdg-desktop-portal stopped)"))
        found = fields(msg)
        edge = rules.shortcut_edge(found["sender"], found["interface"], found["member"],
                                   msg.body, portal_owner=self._portal_owner,
                                   session_handle=self._session, shortcut_id=self._id)
        if edge is not None:
            self._report(self._hold.feed(edge))
            return
        if found["sender"] != self._portal_owner:
            return
        if (found["interface"], found["member"], found["path"]) == (
                SESSION_IFACE, "Closed", self._session):
            self._session_closed = True
            raise Halt(rules.lost("closed the shortcuts session"))
        if (found["interface"], found["member"]) == (SHORTCUTS_IFACE, "ShortcutsChanged"):
            if len(msg.body) == 2 and msg.body[0] == self._session:
                self._bound(rules.shortcut_entries({"shortcuts": msg.body[1]}), newly=False)

    def _report(self, edge: Edge | None) -> None:
        if edge is not None:
            call_safely(self._on_press if edge == "press" else self._on_release)

    def _close(self) -> None:
        """Dismiss a dialog still open, close the session, close the connection."""
        from jeepney import DBusAddress, new_method_call

        link = self._link
        if link is None:
            return
        try:
            self._requests.dismiss(link)
            if self._session and not self._session_closed:
                session = DBusAddress(self._session, bus_name=BUS_NAME, interface=SESSION_IFACE)
                error = error_of(link.call(new_method_call(session, "Close"), _CLOSE_S,
                                           interruptible=False))
                if error is not None:
                    _LOGGER.info("closing the portal session: %s: %s", *error)
        except Exception:  # noqa: BLE001 - the bus or the portal is going away anyway
            _LOGGER.debug("closing the portal session", exc_info=True)
        finally:
            link.close()
            self._link = None
            self._session = ""
