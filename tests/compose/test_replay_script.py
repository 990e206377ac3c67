"""Replay scripts are checked line by line before any model loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.cli import main
from desktop_agent.compose.replay import parse_script
from desktop_agent.core.errors import AgentError


def test_a_good_script_parses(tmp_path: Path) -> None:
    (tmp_path / "q.wav").write_bytes(b"RIFF")
    steps = parse_script('{"say": "hi"}\n\n# a comment\n{"advance_s": 31}\n'
                         '{"press": "confirm"}\n{"wav": "q.wav"}\n', tmp_path)
    assert [(s.line, s.kind) for s in steps] == [(1, "say"), (4, "advance_s"), (5, "press"),
                                                 (6, "wav")]
    assert steps[3].value == tmp_path / "q.wav"


@pytest.mark.parametrize(("line", "why"), [
    ("not json", "not JSON"), ('{"say": ""}', "needs some text"),
    ('{"say": "a", "press": "confirm"}', "exactly one"), ('{"shout": "a"}', "exactly one"),
    ('{"advance_s": -1}', "seconds"), ('{"advance_s": true}', "seconds"),
    ('{"press": "maybe"}', "confirm"), ('{"wav": "missing.wav"}', "no audio file"),
    ("[1, 2]", "exactly one"),
])
def test_a_bad_line_is_named_with_what_to_do(tmp_path: Path, line: str, why: str) -> None:
    with pytest.raises(AgentError) as caught:
        parse_script('{"say": "fine"}\n' + line, tmp_path)
    assert caught.value.code == "replay_bad_step" and "Line 2" in caught.value.message
    assert why in caught.value.message and caught.value.fix


def test_the_cli_prints_the_error_and_fails_without_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"press": "later"}\n')
    assert main(["replay", str(script), "--json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("[replay_bad_step] Line 1") and "Traceback" not in err
    assert main(["replay", str(tmp_path / "none.jsonl")]) == 1
    assert "replay_unreadable" in capsys.readouterr().err
