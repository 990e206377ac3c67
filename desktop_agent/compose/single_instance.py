"""One app per user: a second launch raises the first, and the app serves its control socket.

``claim`` runs in ``run_gui`` before anything is loaded: if an app answers on the control
socket, it is asked to ``show`` its window and this launch ends (exit 0); otherwise this
launch takes the start-up lock and becomes the app. ``serve`` opens the control socket right
after the QApplication exists (before the models load), and the window is attached once it
is built (``InstanceServer.attach`` with a ``WindowRemote``).

A folder that cannot be made private (someone else's folder of that name in a shared temp
dir, a path too long for a socket) is not a reason to refuse to start: the app starts
without the socket and says why on stderr and in the log.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TextIO

from desktop_agent.adapters.desktop.instance_client import Claim, claim_instance, current_dir
from desktop_agent.adapters.desktop.instance_protocol import ensure_private_dir, socket_path
from desktop_agent.core.errors import AgentError
from desktop_agent.runtime.instance_server import InstanceServer

_LOGGER = logging.getLogger(__name__)


def claim(stream: TextIO | None = None) -> Claim | None:
    """Become the app, or have the running one show its window (``Claim.lock`` is None).

    Returns None when the control folder is unusable (the app runs alone, unreachable).
    Raises AgentError when an app is there but stuck, or another launch is still starting:
    never a second app.
    """
    try:
        folder = ensure_private_dir(current_dir())
        socket_path(folder)
    except AgentError as exc:
        _warn(exc, stream)
        return None
    return claim_instance(folder, activation_token=os.environ.get("XDG_ACTIVATION_TOKEN", ""))


def serve(claimed: Claim, stream: TextIO | None = None) -> InstanceServer | None:
    """The control socket, listening in the claimed folder (None, with a warning, if it fails).

    Runs on: GUI thread (after the QApplication exists).
    """
    server = InstanceServer()
    try:
        server.listen(socket_path(claimed.folder))
    except AgentError as exc:
        _warn(exc, stream)
        return None
    _LOGGER.info("control socket: listening on %s", server.path)
    return server


def _warn(exc: AgentError, stream: TextIO | None) -> None:
    _LOGGER.warning("control socket unavailable: %s", exc.describe())
    print(f"desktop_agent: {exc.describe()} The app starts, but 'desktop-agent ptt' and "
          "'show' cannot reach it.", file=stream or sys.stderr)
