"""Model files as files: opening one (a file, or a member of a zip archive), its sha256, and
the check that a file the user chose is the kind of model it stands for.

No manifest here: ``model_resolver`` finds the manifest's models and ``model_import`` brings
them in; both read the files through these.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, Final

from desktop_agent.core.errors import ModelError

CHUNK_BYTES: Final = 4 * 1024 * 1024
"""What one read takes when a model file is hashed or copied."""


Opener = Callable[[], AbstractContextManager[IO[bytes]]]
"""Opens one source of a model file for reading (a file, a wheel member, an archive member)."""


def member_opener(archive: Opener, member: str) -> Opener:
    """An opener for ``member`` of the zip archive that ``archive`` opens (which may itself be
    a member of a wheel: ``zipfile`` seeks inside it). Raises KeyError for a missing member
    and ``zipfile.BadZipFile`` for an archive that is not a zip, when opened."""
    @contextmanager
    def open_member() -> Iterator[IO[bytes]]:
        with archive() as outer, zipfile.ZipFile(outer) as zipped, \
                zipped.open(member) as stream:
            yield stream
    return open_member


def file_opener(path: Path) -> Opener:
    """An opener for a plain file."""
    return lambda: path.open("rb")


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 4 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(CHUNK_BYTES):
            digest.update(block)
    return digest.hexdigest()


def check_user_model(path: Path, kind: str) -> tuple[Path, ...]:
    """Check that a user-supplied model looks like ``kind``; return the files the engine reads."""
    fix = "Point the setting at a valid model, or clear it to use the default."
    if kind == "ct2-dir":
        if not path.is_dir():
            raise ModelError("model_bad_format",
                             f"{path} is not a folder: Whisper models are faster-whisper "
                             "CTranslate2 folders (model.bin, config.json, ...).", fix)
        missing = [n for n in ("model.bin", "config.json") if not (path / n).is_file()]
        if missing:
            raise ModelError("model_bad_format", f"{path} is not a faster-whisper CTranslate2 "
                             f"folder: it lacks {', '.join(missing)}.", fix)
        return tuple(sorted(p for p in path.iterdir() if p.is_file()))
    if not path.is_file():
        raise ModelError("model_bad_format", f"{path} is not a file.", fix)
    if kind == "gguf":
        with path.open("rb") as fh:
            magic = fh.read(4)
        if magic != b"GGUF":
            raise ModelError("model_bad_format", f"{path} is not a GGUF model (it does not start "
                             "with the GGUF magic bytes).", fix)
        return (path,)
    if kind == "piper":
        config = Path(f"{path}.json")
        if not config.is_file():
            raise ModelError("model_bad_format", f"The Piper voice {path} has no config beside it "
                             f"({config.name}).", "Put the voice's .onnx.json next to the .onnx.")
        try:
            rate = json.loads(config.read_text(encoding="utf-8"))["audio"]["sample_rate"]
            int(rate)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelError("model_bad_format", f"{config} is not a Piper voice config "
                             f"({exc.__class__.__name__}).", fix) from exc
        return (path, config)
    return (path,)
