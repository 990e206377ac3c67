"""eval asr: pairs, the real-voice set, the totals' arithmetic, and real runs.

The real runs transcribe Debian's asterisk prompts (Allison Smith's recorded voice, 8 kHz
WAVs as installed) with the default ASR model, directly and through the capture path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.cli import main
from desktop_agent.core.errors import AgentError
from desktop_agent.devtools.eval_asr import (
    MANIFEST,
    Sample,
    evaluate,
    export_pairs,
    pairs_in,
    percentile,
    real_set,
)
from tests.needs import unavailable

SOUNDS = Path("/usr/share/asterisk/sounds/en_US_f_Allison")
EASY = {"all-circuits-busy-now": "All circuits are busy now.",
        "vm-goodbye": "Goodbye",
        "vm-press": "Press",
        "conf-getpin": "Please enter the conference pin number.",
        "vm-review": "press 1 to accept this recording press 2 to listen to it press 3 to "
                     "rerecord your message"}


def _asterisk(names: list[str]) -> list[Sample]:
    samples = [Sample(n, SOUNDS / f"{n}.wav", text) for n, text in EASY.items() if n in names]
    if not all(s.audio.is_file() for s in samples):
        unavailable("asterisk-core-sounds-en-wav", f"{SOUNDS} has not the prompts "
                    "(apt-get install asterisk-core-sounds-en-wav)")
    return samples


def test_pairs_are_audio_files_with_a_text_of_the_same_name(tmp_path: Path) -> None:
    (tmp_path / "a.wav").write_bytes(b"RIFF")
    (tmp_path / "a.txt").write_text("hello there\n")
    (tmp_path / "b.flac").write_bytes(b"fLaC")
    (tmp_path / "b.txt").write_text("second")
    (tmp_path / "c.wav").write_bytes(b"RIFF")  # no text: not a pair
    (tmp_path / "d.txt").write_text("no audio")
    samples = pairs_in(tmp_path)
    assert [(s.name, s.audio.name, s.text) for s in samples] == [
        ("a", "a.wav", "hello there"), ("b", "b.flac", "second")]


def test_a_folder_without_pairs_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(AgentError) as info:
        pairs_in(tmp_path)
    assert info.value.code == "eval_dir_empty" and "NAME.txt" in info.value.message
    with pytest.raises(AgentError) as info:
        pairs_in(tmp_path / "nope")
    assert info.value.code == "eval_dir_missing"


def test_a_set_whose_recordings_are_missing_names_the_packages(tmp_path: Path) -> None:
    manifest = tmp_path / "set.toml"
    manifest.write_text(f'[asterisk]\nsounds = "{tmp_path}"\ntexts = "{tmp_path}/t.gz"\n'
                        'prompts = ["vm-goodbye"]\n')
    with pytest.raises(AgentError) as info:
        real_set(manifest)
    assert info.value.code == "eval_data_missing"
    assert "asterisk-core-sounds-en-wav" in info.value.fix


def test_the_real_set_is_100_installed_recordings_with_their_texts() -> None:
    try:
        samples = real_set(MANIFEST)
    except AgentError as exc:
        unavailable("the real-voice evaluation set", exc.describe())
    assert len(samples) == 100
    names = {s.name: s for s in samples}
    assert names["asterisk/digits/17"].text == "seventeen"
    card = names["pocketsphinx/cards/005"]
    assert card.text == "eight of spades four of clubs seven of hearts"
    assert names["pocketsphinx/librivox/sense_and_sensibility_01_austen_64kb-0880"].text \
        == "he was not an ill disposed young man"
    assert sum(n.startswith("asterisk/") for n in names) == 90
    assert sum(s.text.rstrip().endswith("...") for s in samples) >= 10  # unfinished prompts


def test_totals_pool_words_and_entities_and_take_latency_percentiles(
        monkeypatch: pytest.MonkeyPatch) -> None:
    samples = [Sample("a", Path("a.wav"), "press 4 to call Digium"),
               Sample("b", Path("b.wav"), "please hold"),
               Sample("c", Path("c.wav"), "goodbye")]
    hyps = {"press 4 to call Digium": "press forward to call digium",
            "please hold": "please hold", "goodbye": ""}
    records: list[dict[str, Any]] = []
    fake_audio = iter(["press 4 to call Digium", "please hold", "goodbye"])

    import desktop_agent.adapters.audio.audio_files as audio_files

    # The "audio" is the reference itself: the fake transcriber maps it to a hypothesis.
    monkeypatch.setattr(audio_files, "read_audio", lambda path: next(fake_audio))
    total = evaluate(samples, lambda audio: hyps[audio], model="fake",
                     on_record=records.append)
    assert [r["wer"] for r in records] == [0.2, 0.0, 1.0]
    assert total["n_files"] == 3 and total["ref_words"] == 8
    assert total["wer"] == 0.25  # (1 + 0 + 1) / 8, not the mean of 0.2, 0 and 1
    assert (total["entities"], total["entity_error_rate"]) == (2, 0.5)  # "4" lost
    assert total["latency_ms_p50"] is not None


def test_percentile_interpolates() -> None:
    assert percentile([10.0, 20.0, 30.0, 40.0], 50) == 25.0
    assert percentile([10.0, 20.0, 30.0, 40.0], 95) == pytest.approx(38.5)
    assert percentile([], 50) is None


def _json_lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


@pytest.mark.models
def test_eval_asr_on_real_recordings_with_the_default_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], models: object) -> None:
    export_pairs(_asterisk(list(EASY)[:4]), tmp_path)
    assert main(["eval", "asr", "--dir", str(tmp_path), "--json"]) == 0
    lines = _json_lines(capsys.readouterr().out)
    files, total = lines[:-1], lines[-1]
    assert [f["file"] for f in files] == sorted(list(EASY)[:4])
    for record in files:
        assert {"file", "ref", "hyp", "wer", "latency_ms"} <= record.keys()
        assert record["hyp"] and record["latency_ms"] > 0
    assert total["n_files"] == 4 and total["model"] == "whisper-tiny-en"
    assert total["wer"] <= 0.25, files  # tiny.en gets these clear prompts (nearly) right
    assert total["latency_ms_p95"] >= total["latency_ms_p50"] > 0


@pytest.mark.models
@pytest.mark.slow
def test_eval_asr_through_the_capture_path_with_a_reply_playing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], models: object) -> None:
    export_pairs(_asterisk(["all-circuits-busy-now", "conf-getpin"]), tmp_path)
    for extra in ([], ["--with-reply"]):
        assert main(["eval", "asr", "--dir", str(tmp_path), "--json", "--through",
                     "capture", *extra]) == 0
        lines = _json_lines(capsys.readouterr().out)
        total = lines[-1]
        for record in lines[:-1]:
            capture = record["capture"]
            assert capture["turns"] == 1 and not capture["false_endpoint"], record
            assert 0 < capture["endpoint_wait_ms"] < 3000
        assert total["false_endpoint_rate"] == 0.0
        assert total["wer"] <= 0.25, lines
        assert total["endpoint_wait_ms"]["n"] == 2
        assert ("with a reply" in total["through"]) == bool(extra)


@pytest.mark.models
def test_eval_asr_through_partials_commits_words_and_decodes_the_rest(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], models: object) -> None:
    """A 7.7 s prompt of three sentences: its pauses commit words, and the final transcript
    is as good as one pass over the whole recording."""
    export_pairs(_asterisk(["vm-review", "all-circuits-busy-now"]), tmp_path)
    assert main(["eval", "asr", "--dir", str(tmp_path), "--json", "--through",
                 "partials", "--commit-words", "1"]) == 0
    lines = _json_lines(capsys.readouterr().out)
    records, total = {r["file"]: r for r in lines[:-1]}, lines[-1]
    review = records["vm-review"]["partials"]
    assert review["partials"] >= 3 and review["committed_words"] >= 5, records
    for record in records.values():
        assert record["partials"]["whole_asr_ms"] > 0
        assert record["partials"]["final"] in ("partial", "tail", "whole")
    assert total["through"] == "partials" and total["wer"] <= 0.2, lines
    assert sum(total["final_from"].values()) == 2


def test_cli_errors_are_one_line_with_the_fix(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "asr", "--dir", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("[eval_dir_missing]") and "Traceback" not in err
    assert main(["eval", "asr", "--dir", str(tmp_path), "--with-reply"]) == 1
    assert "--through capture" in capsys.readouterr().err
