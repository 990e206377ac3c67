"""Speech recognition accuracy on real recordings: ``desktop-agent eval asr``.

Input is a folder of pairs, ``NAME.wav`` (or .flac/.mp3/.ogg: any rate, any channels)
with ``NAME.txt`` (what was said), or ``--set real``: the evaluation set in
``devtools/data/asr_eval.toml`` (real human recordings that Debian packages install).

Each file is transcribed by the chosen ASR model (the settings' by default, ``--asr``
to choose) and scored after the normalisation of :mod:`desktop_agent.core.text.wer`:
word error rate (S + D + I) / N and the entity error rate (numbers, clock times and
capitalised names of the reference missing from the transcript). ``--through capture``
sends each file through the capture path first (see :mod:`eval_asr_capture`);
``--through partials`` transcribes it as the recorder does while the user speaks (see
:mod:`eval_asr_partials`).

Output (``--json``): one JSON object per line for each file (``file``, ``ref``, ``hyp``,
``wer``, ``latency_ms``, ``entities``, ``entity_errors``), then one totals object
(``n_files``, ``wer`` pooled over every word, ``entity_error_rate``, ``latency_ms_p50``,
``latency_ms_p95``, ``model``; through capture also ``false_endpoint_rate`` and the
endpoint waits; through partials ``final_from`` and the final and whole pass times).
Latency is the wall time of the ASR call on this machine.
"""

from __future__ import annotations

import gzip
import json
import math
import re
import shutil
import sys
import time
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from desktop_agent.core.errors import AgentError
from desktop_agent.core.text.wer import ErrorCounts, entity_errors, pooled, word_errors

MANIFEST = Path(__file__).parent / "data" / "asr_eval.toml"
AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg")
_APT_FIX = ("apt-get install asterisk-core-sounds-en-wav asterisk-core-sounds-en "
            "pocketsphinx-testdata (scripts/setup.sh installs them)")


@dataclass(frozen=True, slots=True)
class Sample:
    """One recording and what was said in it."""

    name: str
    audio: Path
    text: str


def pairs_in(folder: Path) -> list[Sample]:
    """Every ``NAME.<audio>`` with a ``NAME.txt`` beside it, by name.

    Raises:
        AgentError: ``eval_dir_missing`` / ``eval_dir_empty`` with what to do.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise AgentError("eval_dir_missing", f"{folder} is not a folder.",
                         "Give a folder of NAME.wav + NAME.txt pairs.")
    samples = []
    for audio in sorted(p for p in folder.iterdir() if p.suffix.lower() in AUDIO_SUFFIXES):
        text_file = audio.with_suffix(".txt")
        if text_file.is_file():
            text = text_file.read_text(encoding="utf-8", errors="replace").strip()
            samples.append(Sample(audio.stem, audio, text))
    if not samples:
        raise AgentError("eval_dir_empty", f"{folder} holds no NAME.wav + NAME.txt pairs.",
                         "Put each recording beside a .txt file of the same name that "
                         "says what was said in it.")
    return samples


def _asterisk_texts(index: Path) -> dict[str, str]:
    texts = {}
    with gzip.open(index, "rt", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            name, sep, text = line.partition(":")
            if sep and not line.startswith(";") and text.strip():
                texts[name.strip()] = text.strip()
    return texts


_SPHINX_LINE = re.compile(r"^\s*(?:<s>)?(.*?)(?:</s>)?\s*\(([^()]+)\)\s*$")


def _sphinx_texts(folder: Path) -> dict[str, str]:
    texts = {}
    for name in ("transcription", f"{folder.name}.transcription"):
        path = folder / name
        if path.is_file():
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                match = _SPHINX_LINE.match(line)
                if match:
                    texts[match.group(2).strip()] = " ".join(match.group(1).split())
    return texts


def real_set(manifest: Path = MANIFEST) -> list[Sample]:
    """The real-voice evaluation set named in ``manifest`` (installed files, by path).

    Raises:
        AgentError: ``eval_data_missing`` naming the Debian packages to install.
    """
    spec = tomllib.loads(Path(manifest).read_text(encoding="utf-8"))
    samples: list[Sample] = []
    missing: list[str] = []
    asterisk = spec.get("asterisk")
    if asterisk:
        sounds, index = Path(asterisk["sounds"]), Path(asterisk["texts"])
        texts = _asterisk_texts(index) if index.is_file() else {}
        for name in asterisk["prompts"]:
            audio = sounds / f"{name}.wav"
            if not audio.is_file() or name not in texts:
                missing.append(str(audio))
                continue
            samples.append(Sample(f"asterisk/{name}", audio, texts[name]))
    sphinx = spec.get("pocketsphinx")
    if sphinx:
        root = Path(sphinx["root"])
        for set_name in sphinx["sets"]:
            texts = _sphinx_texts(root / set_name)
            if not texts:
                missing.append(str(root / set_name))
            for name, text in sorted(texts.items()):
                audio = root / set_name / f"{name}.wav"
                if audio.is_file():
                    samples.append(Sample(f"pocketsphinx/{set_name}/{name}", audio, text))
                else:
                    missing.append(str(audio))
    if missing:
        raise AgentError("eval_data_missing", f"{len(missing)} recordings of the evaluation "
                         f"set are not installed (first: {missing[0]}).", _APT_FIX)
    return samples


def export_pairs(samples: Iterable[Sample], folder: Path) -> list[Path]:
    """Write ``samples`` as NAME.wav + NAME.txt pairs into ``folder`` (a copy of each file)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for sample in samples:
        stem = sample.name.replace("/", "__")
        target = folder / f"{stem}{sample.audio.suffix.lower()}"
        shutil.copyfile(sample.audio, target)
        (folder / f"{stem}.txt").write_text(sample.text + "\n", encoding="utf-8")
        written.append(target)
    return written


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (linear interpolation), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low, high = math.floor(pos), math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def score(sample: Sample, hyp: str, latency_ms: float) -> dict[str, Any]:
    """The per-file record: ref, hyp, WER, entities, latency."""
    counts = word_errors(sample.text, hyp)
    missed, entities = entity_errors(sample.text, hyp)
    return {"file": sample.name, "ref": sample.text, "hyp": hyp, "wer": _round(counts.wer),
            "latency_ms": round(latency_ms, 1), "errors": counts.errors,
            "ref_words": counts.ref_words, "entities": entities, "entity_errors": missed,
            "_counts": counts}


def totals(records: Sequence[dict[str, Any]], model: str) -> dict[str, Any]:
    """The pooled figures over every file's record."""
    counts: ErrorCounts = pooled(r["_counts"] for r in records)
    entities = sum(r["entities"] for r in records)
    latency = [r["latency_ms"] for r in records]
    out: dict[str, Any] = {
        "totals": True, "model": model, "n_files": len(records), "ref_words": counts.ref_words,
        "wer": _round(counts.wer), "substitutions": counts.substitutions,
        "deletions": counts.deletions, "insertions": counts.insertions,
        "entities": entities,
        "entity_error_rate": _round(sum(r["entity_errors"] for r in records) / entities
                                    if entities else None),
        "latency_ms_p50": _round(percentile(latency, 50), 1),
        "latency_ms_p95": _round(percentile(latency, 95), 1),
    }
    replayed = [r["partials"] for r in records if "partials" in r]
    if replayed:
        passes = [r for r in records if r["partials"]["final"] != "partial"]
        out["final_from"] = {kind: sum(p["final"] == kind for p in replayed)
                             for kind in ("partial", "tail", "whole")}
        out["final_pass_ms_p50"] = _round(percentile([r["latency_ms"] for r in passes], 50), 1)
        out["whole_pass_ms_p50"] = _round(percentile(
            [r["partials"]["whole_asr_ms"] for r in passes], 50), 1)
    capture = [r["capture"] for r in records if "capture" in r]
    if capture:
        waits = [c["endpoint_wait_ms"] for c in capture if c["endpoint_wait_ms"] is not None]
        out["false_endpoint_rate"] = _round(sum(c["false_endpoint"] for c in capture)
                                            / len(capture))
        out["missed_speech_rate"] = _round(sum(c["turns"] == 0 for c in capture)
                                           / len(capture))
        out["endpoint_wait_ms"] = {
            "n": len(waits), "p50": _round(percentile(waits, 50), 1),
            "p95": _round(percentile(waits, 95), 1), "max": max(waits) if waits else None,
            "mean": _round(sum(waits) / len(waits), 1) if waits else None}
    return out


Transcriber = Callable[[Any], str]


def evaluate(samples: Sequence[Sample], transcribe: Transcriber, *, model: str = "",
             through: Callable[[Any, Transcriber], tuple[str, dict[str, Any]]] | None = None,
             on_record: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Transcribe and score every sample; returns the totals object.

    Args:
        samples: the recordings and their texts.
        transcribe: float32 16 kHz mono audio -> text (the ASR engine's ``transcribe``).
        model: the model's id, for the totals.
        through: when set, (audio, transcribe) -> (text, figures): the capture path replay
            of :mod:`eval_asr_capture` or the partials replay of :mod:`eval_asr_partials`.
        on_record: called with each file's record as it is scored.
    """
    from desktop_agent.adapters.audio.audio_files import read_audio

    records = []
    for sample in samples:
        audio = read_audio(sample.audio)
        if through is None:
            start = time.perf_counter()
            hyp = transcribe(audio)
            latency_ms = (time.perf_counter() - start) * 1000
            record = score(sample, hyp, latency_ms)
        else:
            hyp, figures = through(audio, transcribe)
            # Latency: the final transcript(s) of the turn(s); partials are not counted.
            record = score(sample, hyp, figures.pop("final_asr_ms"))
            record["partials" if "partials" in figures else "capture"] = figures
        records.append(record)
        if on_record is not None:
            on_record(record)
    return totals(records, model)


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if not k.startswith("_")}


def run(folder: Path | None, *, use_set: str | None = None, asr: str | None = None,
        through: str | None = None, with_reply: bool = False, as_json: bool = False,
        limit: int | None = None, export: Path | None = None,
        out: TextIO | None = None, commit_words: int = 0) -> int:
    """The ``eval asr`` command. Returns the exit status (errors raise AgentError)."""
    out = out or sys.stdout
    samples = real_set() if use_set == "real" else pairs_in(folder or Path("."))
    if limit:
        samples = samples[:limit]
    if export is not None:
        export_pairs(samples, export)
        print(f"wrote {len(samples)} pairs to {export}", file=out)
        return 0
    from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.compose.engines import THREADS_ASR

    resolved = ModelResolver(load_manifest()).resolve(asr or _settings_asr(), "asr")
    engine = WhisperAsr(resolved.path, cpu_threads=THREADS_ASR)

    def transcribe(audio: Any) -> str:
        return engine.transcribe(audio).text

    replay: Any = None
    if through == "capture":
        from desktop_agent.devtools.eval_asr_capture import CaptureReplay

        replay = CaptureReplay(with_reply=with_reply)
    elif through == "partials":
        from desktop_agent.core.listening.partials import PartialSettings
        from desktop_agent.devtools.eval_asr_partials import PartialsReplay

        replay = PartialsReplay(engine, settings=PartialSettings(min_commit_words=commit_words))
    transcribe(_warm_audio())  # the first call pays for lazy set-up, not the first file

    def show(record: dict[str, Any]) -> None:
        if as_json:
            print(json.dumps(_public(record)), file=out, flush=True)
        else:
            wer = "  n/a " if record["wer"] is None else f"{record['wer'] * 100:5.1f}%"
            print(f"{wer} {record['latency_ms']:7.0f} ms  {record['file']}\n"
                  f"        ref: {record['ref']}\n        hyp: {record['hyp']}", file=out)

    total = evaluate(samples, transcribe, model=resolved.model_id,
                     through=replay.run if replay else None, on_record=show)
    if through == "capture":
        total["through"] = "capture" + (" with a reply playing" if with_reply else "")
    elif through == "partials":
        total["through"] = "partials"
    if as_json:
        print(json.dumps(total), file=out)
    else:
        print(_summary(total), file=out)
    return 0


def _summary(total: dict[str, Any]) -> str:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{x * 100:.1f}%"

    lines = [f"model {total['model']}: {total['n_files']} files, {total['ref_words']} words",
             f"WER {pct(total['wer'])} (S {total['substitutions']}, D {total['deletions']}, "
             f"I {total['insertions']}), entity error rate {pct(total['entity_error_rate'])} "
             f"of {total['entities']}",
             f"latency p50 {total['latency_ms_p50']} ms, p95 {total['latency_ms_p95']} ms"]
    if "final_from" in total:
        kinds = total["final_from"]
        lines.append(f"final transcript from a partial {kinds['partial']}, a pass after "
                     f"committed words {kinds['tail']}, a whole pass {kinds['whole']}; "
                     f"final pass p50 {total['final_pass_ms_p50']} ms (whole pass "
                     f"{total['whole_pass_ms_p50']} ms)")
    if "false_endpoint_rate" in total:
        waits = total["endpoint_wait_ms"]
        lines.append(f"false endpoints {pct(total['false_endpoint_rate'])}, no turn "
                     f"{pct(total['missed_speech_rate'])}, endpoint wait p50 {waits['p50']} "
                     f"ms, p95 {waits['p95']} ms")
    return "\n".join(lines)


def _settings_asr() -> str:
    from desktop_agent.adapters import paths
    from desktop_agent.adapters.store.settings_store import load_settings

    return load_settings(paths.config_dir() / "settings.toml").settings.models.asr


def _warm_audio() -> Any:
    import numpy as np

    rng = np.random.default_rng(0)
    return (rng.standard_normal(16_000) * 0.01).astype(np.float32)


def add_parser(sub: Any) -> None:
    """Register ``eval asr`` on the CLI's subparsers (cli.py calls this)."""
    ev = sub.add_parser("eval", help="accuracy on recordings: eval asr --dir DIR")
    ev.add_argument("suite", choices=["asr"])
    source = ev.add_mutually_exclusive_group(required=True)
    source.add_argument("--dir", type=Path, help="a folder of NAME.wav + NAME.txt pairs")
    source.add_argument("--set", choices=["real"], dest="eval_set",
                        help="the real-voice set of devtools/data/asr_eval.toml (installed "
                             "Debian recordings)")
    ev.add_argument("--asr", default=None, help="ASR model id or folder (default: settings)")
    ev.add_argument("--through", choices=["capture", "partials"], default=None,
                    help="capture: run each file through the capture path (echo canceller, "
                         "VAD, hands-free endpointer) first; partials: transcribe it as the "
                         "recorder does while the user speaks (partials, committed words, "
                         "the final pass over the rest)")
    ev.add_argument("--commit-words", type=int, default=0, metavar="N",
                    help="(--through partials) commit words two partials agree on, N at "
                         "least, and decode only the rest (the app has this off: 0)")
    ev.add_argument("--with-reply", action="store_true",
                    help="(--through capture) a reply plays while the user speaks")
    ev.add_argument("--json", action="store_true", help="JSON lines: one per file, then totals")
    ev.add_argument("--limit", type=int, default=None, help="only the first N files")
    ev.add_argument("--export", type=Path, default=None,
                    help="write the files as NAME.wav + NAME.txt pairs here, and stop")


def main(args: Any) -> int:
    """Dispatch from cli.py's parsed arguments."""
    if args.with_reply and args.through != "capture":
        raise AgentError("eval_bad_arguments", "--with-reply needs --through capture.",
                         "Add --through capture.")
    if args.commit_words and args.through != "partials":
        raise AgentError("eval_bad_arguments", "--commit-words needs --through partials.",
                         "Add --through partials.")
    if args.commit_words < 0:
        raise AgentError("eval_bad_arguments", "--commit-words must be 0 or more.",
                         "Give a number of words, e.g. --commit-words 1 (0: no commits).")
    return run(args.dir, use_set=args.eval_set, asr=args.asr, through=args.through,
               with_reply=args.with_reply, as_json=args.json, limit=args.limit,
               export=args.export, commit_words=args.commit_words)
