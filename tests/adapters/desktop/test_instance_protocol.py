"""The control socket's protocol, its folder rule, the client and the start-up lock.

No Qt: the client is plain stdlib, and a "running app" here is a bare AF_UNIX socket.
"""

from __future__ import annotations

import os
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from desktop_agent.adapters.desktop import instance_client as client
from desktop_agent.adapters.desktop.instance_protocol import (
    COMMANDS,
    MAX_LINE,
    Reply,
    Request,
    control_dir,
    encode_reply,
    encode_request,
    ensure_private_dir,
    parse_reply,
    parse_request,
    socket_path,
)
from desktop_agent.core.errors import AgentError


@pytest.fixture
def folder() -> Iterator[Path]:
    """A short private folder (socket paths must stay under 108 bytes; tmp_path may not)."""
    with tempfile.TemporaryDirectory(prefix="da-") as name:
        yield ensure_private_dir(Path(name) / "ctl")


# -- the protocol ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_goes_through_the_line_and_back(command: str) -> None:
    line = encode_request(Request(command))
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert parse_request(line) == Request(command)


def test_bare_words_are_a_request_too_for_nc() -> None:
    assert parse_request(b"ptt   toggle\r\n") == Request("ptt toggle")
    assert parse_request(b"show") == Request("show")


def test_only_show_carries_the_activation_token() -> None:
    assert parse_request(encode_request(Request("show", "tok-1"))) == Request("show", "tok-1")
    line = b'{"command": "ptt start", "activation_token": "tok-1"}\n'
    assert parse_request(line) == Request("ptt start")


@pytest.mark.parametrize(("line", "code"), [
    (b"{not json\n", "bad_request"),
    (b'["ptt toggle"]\n', "unknown_command"),  # not an object: read as words, not a command
    (b'{"cmd": "show"}\n', "bad_request"),
    (b'{"command": 3}\n', "bad_request"),
    (b'{"command": "show", "activation_token": 5}\n', "bad_request"),
    (b"\xff\xfe\n", "bad_request"),
    (b"ptt jump\n", "unknown_command"),
    (b"\n", "unknown_command"),
    (b"x" * (MAX_LINE + 1), "bad_request"),
])
def test_a_bad_request_gets_a_clear_error_reply(line: bytes, code: str) -> None:
    reply = parse_request(line)
    assert isinstance(reply, Reply) and not reply.ok
    assert reply.code == code
    assert reply.message and reply.fix
    assert reply.describe().startswith(f"[{code}] ")
    assert parse_reply(encode_reply(reply)) == reply  # it survives the wire


def test_replies_round_trip_and_a_garbled_one_is_an_error() -> None:
    assert parse_reply(encode_reply(Reply.done("Listening."))) == Reply.done("Listening.")
    assert Reply.done("Listening.").describe() == "Listening."
    assert parse_reply(b"").code == "bad_reply"
    assert parse_reply(b'{"message": "x"}').code == "bad_reply"


# -- where the socket lives ---------------------------------------------------------------


def test_the_folder_is_in_the_runtime_dir_else_a_temp_dir_named_for_the_uid() -> None:
    assert control_dir({"XDG_RUNTIME_DIR": "/run/user/1000"}, 1000, "/tmp") == \
        Path("/run/user/1000/desktop-agent")
    assert control_dir({}, 1000, "/tmp") == Path("/tmp/desktop-agent-1000")
    assert control_dir({"XDG_RUNTIME_DIR": "relative/dir"}, 7, "/var/tmp") == \
        Path("/var/tmp/desktop-agent-7")


def test_a_benchmark_can_keep_its_app_apart_from_the_users() -> None:
    env = {"XDG_RUNTIME_DIR": "/run/user/1000", "DESKTOP_AGENT_RUNTIME_DIR": "/tmp/bench-run"}
    assert control_dir(env, 1000, "/tmp") == Path("/tmp/bench-run")


def test_the_folder_is_made_0700_even_under_a_loose_umask(tmp_path: Path) -> None:
    old = os.umask(0o000)
    try:
        made = ensure_private_dir(tmp_path / "ctl")
    finally:
        os.umask(old)
    assert stat.S_IMODE(made.stat().st_mode) == 0o700


def test_an_existing_folder_is_tightened_to_0700(tmp_path: Path) -> None:
    loose = tmp_path / "ctl"
    loose.mkdir(mode=0o755)
    os.chmod(loose, 0o755)
    ensure_private_dir(loose)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o700


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_a_symlink_or_a_file_in_its_place_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "ctl"
    if kind == "symlink":
        (tmp_path / "elsewhere").mkdir()
        target.symlink_to(tmp_path / "elsewhere")
    else:
        target.write_text("")
    with pytest.raises(AgentError) as caught:
        ensure_private_dir(target)
    assert caught.value.code == "control_dir_unsafe"
    assert "XDG_RUNTIME_DIR" in caught.value.fix


def test_a_socket_path_too_long_for_af_unix_is_an_error_not_a_crash() -> None:
    with pytest.raises(AgentError) as caught:
        socket_path(Path("/tmp") / ("x" * 120))
    assert caught.value.code == "socket_path_too_long"


# -- the client ---------------------------------------------------------------------------


def test_no_socket_means_no_instance(folder: Path) -> None:
    with pytest.raises(AgentError) as caught:
        client.send(Request("ptt toggle"), folder)
    assert caught.value.code == "no_instance"
    assert caught.value.describe() == ("[no_instance] No desktop-agent is running. "
                                       "Fix: Start it with 'desktop-agent' first.")
    assert list(folder.iterdir()) == []  # the client creates nothing


def test_a_stale_socket_of_a_killed_app_means_no_instance(folder: Path) -> None:
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(socket_path(folder)))
    dead.close()  # the file stays, nobody listens: what a killed app leaves behind
    assert socket_path(folder).exists()
    with pytest.raises(AgentError) as caught:
        client.send(Request("show"), folder)
    assert caught.value.code == "no_instance"
    assert not client.answers(socket_path(folder))


def test_an_app_that_accepts_but_never_answers_times_out(folder: Path) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as mute:
        mute.bind(str(socket_path(folder)))
        mute.listen(1)
        with pytest.raises(AgentError) as caught:
            client.send(Request("ptt start"), folder, timeout_s=0.2)
    assert caught.value.code == "instance_not_answering"


@contextmanager
def one_reply_app(folder: Path, reply: Reply) -> Iterator[list[bytes]]:
    """A stand-in app on the folder's socket: reads one line (into the list), sends ``reply``."""
    got: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(socket_path(folder)))
        server.listen(1)

        def answer() -> None:
            conn, _ = server.accept()
            with conn:
                got.append(conn.makefile("rb").readline())
                conn.sendall(encode_reply(reply))

        thread = threading.Thread(target=answer, daemon=True)  # never holds up the run
        thread.start()
        yield got
        thread.join(10)


def test_the_client_sends_one_line_and_reads_one_reply(folder: Path) -> None:
    with one_reply_app(folder, Reply.done("Listening.")) as got:
        reply = client.send(Request("ptt start"), folder)
    assert reply == Reply.done("Listening.")
    assert got == [b'{"command": "ptt start"}\n']


# -- the start-up lock ----------------------------------------------------------------------


def test_the_first_launch_takes_the_lock_and_the_second_cannot(folder: Path) -> None:
    first = client.claim_instance(folder, wait_s=0)
    assert first.lock is not None and first.reply is None
    # flock is per open file: a second open in this same process is a second launch
    assert client.InstanceLock.try_take(first.lock.path) is None
    with pytest.raises(AgentError) as caught:  # lost the lock, and nobody listens
        client.claim_instance(folder, wait_s=0)
    assert caught.value.code == "instance_starting"
    first.lock.release()
    again = client.InstanceLock.try_take(first.lock.path)
    assert again is not None
    again.release()


def test_a_launch_that_finds_an_app_forwards_show_and_takes_no_lock(folder: Path) -> None:
    with one_reply_app(folder, Reply.done("Shown.")) as got:
        claim = client.claim_instance(folder, activation_token="tok-9", wait_s=0)
    assert claim.lock is None and claim.reply == Reply.done("Shown.")
    assert parse_request(got[0]) == Request("show", "tok-9")
    lock = client.InstanceLock.try_take(folder / "instance.lock")
    assert lock is not None
    lock.release()
