"""A portal call answered through a Request object, on the portal thread (jeepney, D-Bus).

A portal method such as ``CreateSession`` or ``BindShortcuts`` returns at once with the path
of a Request object; its outcome comes later, as that object's ``Response`` signal (a code
and a dict of results), perhaps after the user answered a dialog. ``PortalRequests`` makes
one such call at a time on a ``portal_bus.Link``:

1. a fresh ``handle_token`` (``token()``), the Request path it predicts
   (``portal_protocol.request_path``), and the ``Response`` subscribed to *before* the call
   (a fast portal may answer before the reply to the call arrives);
2. the call; a portal that ignored the token gets its real path subscribed too;
3. the ``Response`` awaited, whatever else came meanwhile kept in the link's backlog (a press
   that came early, a change of the shortcuts) for the caller to handle after;
4. the subscriptions removed, the code read: 0 gives the results, 1 (the user said no) and 2
   (the portal failed) halt with a problem (``portal_protocol.request_problem``).

``pending`` is the Request still awaited ('' otherwise), so ``dismiss()`` can close its
dialog when the app stops in the middle of a call.

Error contract: every problem is raised as ``Halt`` (a ``DesktopError`` inside), which never
leaves the portal thread: its entry point turns it into ``on_error``. A bus failure raises
what the link raised (``TimeoutError``, ``BusError``, ``Interrupted``).

Threads: the portal thread alone (the link belongs to it).
"""

from __future__ import annotations

import itertools
import secrets
import time
from collections.abc import Callable
from typing import Any

from desktop_agent.adapters.desktop import portal_protocol as rules
from desktop_agent.adapters.desktop.portal_bus import Link, error_of, fields, is_name_lost
from desktop_agent.adapters.desktop.portal_protocol import BUS_NAME, REQUEST_IFACE
from desktop_agent.core.errors import DesktopError


class Halt(Exception):  # noqa: N818 - not an error: the portal thread's way out with a problem
    """A step's problem, carried from deep in the steps to the portal thread's entry point."""

    def __init__(self, problem: DesktopError) -> None:
        super().__init__(problem.describe())
        self.problem = problem


class PortalRequests:
    """Calls that answer through a Request, one at a time, with tokens of our own.

    Runs on: the portal thread.
    """

    def __init__(self, failed: Callable[[str, str], DesktopError] = rules.failed) -> None:
        """``failed(step, detail)`` makes the problem a failed step halts with."""
        self._failed = failed
        self._tokens = itertools.count(1)
        self._prefix = f"desktop_agent_{secrets.token_hex(4)}"
        self.pending = ""
        """The Request path still awaited ('' when none): its dialog is open, maybe."""
        self.portal_owner = ""
        """The portal's unique name: only its signals count."""

    def token(self) -> str:
        """A handle or session token not used before by this app run."""
        return f"{self._prefix}_{next(self._tokens)}"

    def call(self, link: Link, step: str, make: Callable[[str], Any],
             timeout_s: float | None) -> dict[str, Any]:
        """Make the call ``make(token)``; its results, or ``Halt`` on a problem.

        Args:
            step: which call, a key of ``portal_protocol.STEPS`` (named in the problem).
            make: builds the method call message with the given ``handle_token``.
            timeout_s: how long the Response may take; None waits as long as the app runs
                (a dialog the user answers).
        """
        token = self.token()
        predicted = rules.request_path(link.unique_name, token)
        subscribed = [self._response_rule(predicted)]
        link.add_match(subscribed[0])  # before the call: the response may be quick
        # Pending from the call on: a stop() before the reply still dismisses its dialog.
        self.pending = predicted
        reply = link.call(make(token))
        error = error_of(reply)
        if error is not None:
            self.pending = ""
            raise Halt(self._failed(rules.STEPS.get(step, step), ": ".join(error)))
        handle = str(reply.body[0])
        if handle != predicted:  # a portal that ignored the token (older than the docs)
            subscribed.append(self._response_rule(handle))
            link.add_match(subscribed[-1])
        self.pending = handle
        code, results = self._await_response(link, {predicted, handle}, step, timeout_s)
        self.pending = ""
        for rule in subscribed:
            link.remove_match(rule)
        problem = rules.request_problem(step, code, self._failed)
        if problem is not None:
            raise Halt(problem)
        return results

    def dismiss(self, link: Link) -> None:
        """Close the Request still awaited (its dialog goes away); nothing when none is."""
        from jeepney import DBusAddress, new_method_call

        if self.pending:
            link.send(new_method_call(DBusAddress(
                self.pending, bus_name=BUS_NAME, interface=REQUEST_IFACE), "Close"))
            self.pending = ""

    @staticmethod
    def _response_rule(path: str) -> Any:
        from jeepney import MatchRule

        return MatchRule(type="signal", sender=BUS_NAME, interface=REQUEST_IFACE,
                         member="Response", path=path)

    def _await_response(self, link: Link, paths: set[str], step: str,
                        timeout_s: float | None) -> tuple[int, dict[str, Any]]:
        for msg in list(link.backlog):  # it may have come during a call made meanwhile
            if self._is_response(msg, paths):
                link.backlog.remove(msg)
                return int(msg.body[0]), dict(msg.body[1])
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            try:
                msg = link.receive(deadline)
            except TimeoutError:
                raise Halt(self._failed(rules.STEPS.get(step, step),
                                        f"no response in {timeout_s:g} s")) from None
            if self._is_response(msg, paths):
                return int(msg.body[0]), dict(msg.body[1])
            if is_name_lost(msg, BUS_NAME, self.portal_owner):
                raise Halt(self._failed(rules.STEPS.get(step, step), "the portal left the bus"))
            link.backlog.append(msg)  # a press that came early, a change: handled later

    def _is_response(self, msg: Any, paths: set[str]) -> bool:
        found = fields(msg)
        return (found["member"] == "Response" and found["interface"] == REQUEST_IFACE
                and found["path"] in paths and found["sender"] == self.portal_owner)
