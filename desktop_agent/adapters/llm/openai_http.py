"""The server backend's HTTP side: its failures as ``LlmError`` (each with a code and a fix),
and the watch that closes a request's socket the moment its cancel token is set.

``OpenAiLlm`` (llm_openai.py) streams the replies; the error contract is described there.
"""

from __future__ import annotations

import http.client
import socket
import threading
from typing import Any, Final

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.conversation.openai_chat import ServerUrl, error_message
from desktop_agent.core.errors import LlmError

CANCEL_POLL_S: Final = 0.05
"""How often the watcher looks at the cancel token while a request is open: the bound on
how late a cancel closes the connection."""
MAX_ERROR_BODY: Final = 8192
FIX_UNREACHABLE: Final = ("Start the LLM server, or check llm.server_url in Settings "
                          "(or set llm.backend to local).")
FIX_TIMEOUT: Final = ("The server may be overloaded or its model too big for it: try again, "
                      "or choose a smaller model on the server.")


def fix_bad(server: ServerUrl) -> str:
    """The fix for an answer that is not a chat reply."""
    return (f"Check that {server.display()} is an OpenAI-compatible API "
            "(llama-server, vLLM): its chat endpoint is <url>/chat/completions.")


def read_error(exc: BaseException, server: ServerUrl, read_timeout_s: float) -> LlmError:
    """A failed read: the server sent nothing for ``read_timeout_s``, or the connection broke."""
    if isinstance(exc, TimeoutError):
        return LlmError("server_timeout",
                        f"The LLM server {server.display()} sent nothing for "
                        f"{read_timeout_s:g} s.", FIX_TIMEOUT)
    return LlmError("server_unreachable",
                    f"The connection to the LLM server {server.display()} broke "
                    f"({exc.__class__.__name__}).", FIX_UNREACHABLE)


def status_error(response: http.client.HTTPResponse) -> LlmError:
    """An HTTP error status, with the server's own words when it sent any."""
    try:
        said = error_message(response.read(MAX_ERROR_BODY))
    except (TimeoutError, OSError, http.client.HTTPException):
        said = ""
    status = response.status
    if status in (401, 403):
        fix = ("Set the API key: put it in the environment variable named in Settings "
               "(llm.api_key_env) before starting the app.")
    elif status == 404:
        fix = ("Check llm.server_url (the API's base, e.g. http://host:8000/v1) and "
               "llm.server_model (a model the server serves).")
    elif status in (400, 422):
        fix = "The server refused the request: check llm.server_model and the server's log."
    else:
        fix = "Check the server's log; try again once it is running normally."
    reason = f"{status} {response.reason}".strip()
    return LlmError("server_error", f"The LLM server answered HTTP {reason}"
                    + (f": {said}" if said else "") + ".", fix)



class CancelWatch:
    """Closes a request's socket as soon as its cancel token is set.

    A read blocked on a silent server does not return by itself until the read timeout;
    shutting the socket down from this thread ends it at once, and tells the server the
    client has gone. Runs on: its own daemon thread while the request is open.
    """

    def __init__(self, cancel: CancelToken | None, conn: http.client.HTTPConnection) -> None:
        self._cancel, self._conn = cancel, conn
        self._done = threading.Event()
        if cancel is not None:
            threading.Thread(target=self._watch, name="llm-server-cancel",
                             daemon=True).start()

    def _watch(self) -> None:
        cancel = self._cancel
        assert cancel is not None
        while not self._done.wait(CANCEL_POLL_S):
            if cancel.cancelled:
                sock: Any = self._conn.sock
                if sock is not None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass  # already closed
                return

    def stop(self) -> None:
        """The request is over: stop watching."""
        self._done.set()
