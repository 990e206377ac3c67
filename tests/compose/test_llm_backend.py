"""Composing the chat engine from Settings: local llama.cpp or a server (llm.backend)."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.adapters.llm.llm_openai import OpenAiLlm
from desktop_agent.compose.engines import load_engines
from desktop_agent.compose.knowledge import make_proposer
from desktop_agent.compose.llm_backend import api_key, llm_roles, server_llm, uses_server
from desktop_agent.core.knowledge import LexicalProposer
from desktop_agent.core.settings import Settings
from tests.adapters.llm.llm_server_rig import free_port, scripted, streams, text_event

KEY = "sk-from-the-environment-42"


def _server(url: str = "http://127.0.0.1:8080/v1", env: str = "") -> Settings:
    s = Settings().replace_field("llm.backend", "server").replace_field("llm.server_url", url)
    return s.replace_field("llm.api_key_env", env)


def test_a_server_backend_needs_no_local_llm_file() -> None:
    roles = ("asr", "llm", "tts", "vad")
    assert llm_roles(Settings(), roles) == roles and not uses_server(Settings())
    assert llm_roles(_server(), roles) == ("asr", "tts", "vad") and uses_server(_server())


def test_the_key_comes_from_the_named_variable_and_only_its_name_is_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    assert api_key(_server(env="MY_LLM_KEY"), {"MY_LLM_KEY": f" {KEY} "}) == KEY
    assert api_key(_server(), {"MY_LLM_KEY": KEY}) is None  # no variable named: no key
    assert api_key(_server(env="MY_LLM_KEY"), {}) is None
    assert "MY_LLM_KEY is not set" in caplog.text and KEY not in caplog.text


def test_a_url_set_in_settings_may_name_another_computer() -> None:
    engine = server_llm(_server("https://gpu.lan:8000/v1", "K"), {"K": KEY})
    assert engine.server.host == "gpu.lan" and not engine.server.loopback
    assert KEY not in repr(engine)


def test_load_engines_gives_the_server_engine_and_grounded_answers_a_lexical_proposer() -> None:
    engines = load_engines(_server(f"http://127.0.0.1:{free_port()}/v1"), ("llm",))
    assert isinstance(engines.llm, OpenAiLlm) and "llm" not in engines.models
    assert isinstance(make_proposer(engines.llm), LexicalProposer)


def _ask(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "settings.toml").write_text(
        f'[llm]\nbackend = "server"\nserver_url = "{url}"\napi_key_env = "TEST_LLM_KEY"\n')
    env = {**os.environ, "DESKTOP_AGENT_CONFIG_DIR": str(config), "TEST_LLM_KEY": KEY}
    return subprocess.run(
        [sys.executable, "-m", "desktop_agent", "ask", "--text", "Tell me a joke.",
         "--data-dir", str(tmp_path / "data"), *extra],
        capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.models  # the real voice speaks the server's reply
def test_ask_answers_through_the_server_in_the_settings(tmp_path: Path) -> None:
    reply = [text_event("A skeleton "), text_event("walks into a bar."), "[DONE]"]
    with scripted(streams(reply)) as server:
        done = _ask(tmp_path, server.url, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["reply"] == "A skeleton walks into a bar." and "llm" not in out["models"]
    assert server.requests[0].header("Authorization") == f"Bearer {KEY}"
    assert KEY not in done.stdout + done.stderr


@pytest.mark.models
def test_ask_with_the_server_down_says_what_to_do_without_a_traceback(tmp_path: Path) -> None:
    done = _ask(tmp_path, f"http://127.0.0.1:{free_port()}/v1")
    assert done.returncode != 0
    assert "[server_unreachable]" in done.stderr and "llm.server_url" in done.stderr
    assert "Traceback" not in done.stderr and KEY not in done.stdout + done.stderr
