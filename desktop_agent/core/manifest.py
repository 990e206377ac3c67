"""The model manifest: which models exist, where their weights come from, how to check them.

Parsing only (stdlib ``tomllib``); finding and assembling files is the resolver's job
(``adapters/models/model_resolver.py``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from desktop_agent.core.errors import ModelError

ROLES: Final = ("asr", "llm", "tts", "vad", "turn", "embed")
KINDS: Final = ("ct2-dir", "gguf", "piper", "onnx")
ASSEMBLY: Final = ("copy", "concat", "extract")
MEMBER_SEP: Final = "!"
"""Separates a zip archive inside a package from a member of it in a file path:
``"all_minilm_l6_v2/model.zip!tokenizer.json"`` (assemble = "extract" only)."""


def split_member(rel: str) -> tuple[str, str]:
    """Split ``"pkg/a.zip!dir/m.json"`` into ``("pkg/a.zip", "dir/m.json")``.

    A plain path gives ``(rel, "")``.
    """
    path, _, member = rel.partition(MEMBER_SEP)
    return path, member


def final_name(rel: str) -> str:
    """The file name a package path (or an archive member) has once it is in the model dir."""
    path, member = split_member(rel)
    return Path(member or path).name


@dataclass(frozen=True, slots=True)
class ModelSpec:
    """One model of the manifest."""

    model_id: str
    role: str
    kind: str
    default: bool
    description: str
    packages: tuple[str, ...]
    """Pinned requirements, "name==version"."""
    files: tuple[str, ...]
    """Paths inside installed packages, "module/relative/path"; with assemble = "extract",
    "module/archive.zip!member" names one member of a zip archive the package carries."""
    assemble: str
    output: str
    """File name of the assembled file ("" unless assemble == "concat")."""
    sha256: Mapping[str, str]
    """Expected sha256 of each final file, by file name."""
    licence: str
    size_bytes: int
    copy_files: tuple[str, ...] = ()
    """(assemble = "concat") package files copied beside the joined one, e.g. a tokenizer."""
    speaker: bool = False
    """True for the LLM that speaks answers by default (``models.speaker_llm = "auto"``)
    when it is installed: installed with the defaults, yet the app works without it (the
    default LLM then speaks too)."""

    @property
    def installed_by_default(self) -> bool:
        """True for the models ``requirements-default.txt`` installs (defaults, the speaker)."""
        return self.default or self.speaker

    @property
    def final_names(self) -> tuple[str, ...]:
        """File names of the files the engine loads."""
        if self.assemble == "concat":
            return (self.output, *(Path(f).name for f in self.copy_files))
        return tuple(final_name(f) for f in self.files)

    @property
    def package_names(self) -> tuple[str, ...]:
        """Distribution names without versions."""
        return tuple(p.split("==")[0] for p in self.packages)


@dataclass(frozen=True, slots=True)
class Manifest:
    """All models, by id."""

    models: Mapping[str, ModelSpec]
    path: str = ""

    def get(self, model_id: str) -> ModelSpec:
        """The spec for ``model_id``; ModelError naming the known ids if unknown."""
        try:
            return self.models[model_id]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise ModelError(
                "unknown_model",
                f"No model called {model_id!r} in the manifest.",
                f"Use one of: {known}, or set an absolute path to your own model file/folder.",
            ) from None

    def default_for(self, role: str) -> ModelSpec:
        """The default model of ``role``."""
        for spec in self.models.values():
            if spec.role == role and spec.default:
                return spec
        raise ModelError("no_default_model", f"The manifest has no default {role} model.")

    def speaker(self) -> ModelSpec | None:
        """The default speaking LLM (``speaker = true``), or None when the manifest has none."""
        return next((s for s in self.models.values() if s.speaker), None)

    def by_role(self, role: str) -> tuple[ModelSpec, ...]:
        """Every model of ``role``, defaults first."""
        specs = [s for s in self.models.values() if s.role == role]
        return tuple(sorted(specs, key=lambda s: (not s.default, s.model_id)))


def _spec(model_id: str, raw: Mapping[str, Any]) -> ModelSpec:
    def need(key: str) -> Any:
        if key not in raw:
            raise ModelError("bad_manifest", f"Model {model_id!r} lacks the field {key!r}.")
        return raw[key]

    spec = ModelSpec(
        model_id=model_id,
        role=str(need("role")),
        kind=str(need("kind")),
        default=bool(raw.get("default", False)),
        description=str(raw.get("description", "")),
        packages=tuple(str(p) for p in need("packages")),
        files=tuple(str(f) for f in need("files")),
        assemble=str(raw.get("assemble", "copy")),
        output=str(raw.get("output", "")),
        sha256={str(k): str(v) for k, v in dict(need("sha256")).items()},
        licence=str(need("licence")),
        size_bytes=int(need("size_bytes")),
        copy_files=tuple(str(f) for f in raw.get("copy_files", ())),
        speaker=bool(raw.get("speaker", False)),
    )
    problems = []
    if spec.role not in ROLES:
        problems.append(f"role {spec.role!r} is not one of {ROLES}")
    if spec.kind not in KINDS:
        problems.append(f"kind {spec.kind!r} is not one of {KINDS}")
    if spec.assemble not in ASSEMBLY:
        problems.append(f"assemble {spec.assemble!r} is not one of {ASSEMBLY}")
    if spec.speaker and (spec.role != "llm" or spec.default):
        problems.append("speaker = true is for an llm model that is not the default one")
    if spec.assemble == "concat" and not spec.output:
        problems.append("assemble = 'concat' needs an 'output' file name")
    members = [f for f in (*spec.files, *spec.copy_files) if MEMBER_SEP in f]
    if members and spec.assemble != "extract":
        problems.append(f"archive members {members} need assemble = 'extract'")
    if len(set(spec.final_names)) != len(spec.final_names):
        problems.append(f"two files would have the same name in {spec.final_names}")
    missing = [n for n in spec.final_names if n not in spec.sha256]
    if missing:
        problems.append(f"no sha256 for {missing}")
    if problems:
        raise ModelError("bad_manifest", f"Model {model_id!r}: " + "; ".join(problems) + ".")
    return spec


def parse_manifest(text: str, path: str = "") -> Manifest:
    """Parse manifest TOML text. Raises ModelError('bad_manifest') on any defect."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ModelError("bad_manifest",
                         f"The model manifest {path} is not valid TOML: {exc}.") from exc
    raw_models = data.get("models")
    if not isinstance(raw_models, dict) or not raw_models:
        raise ModelError("bad_manifest", f"The model manifest {path} lists no [models.*].")
    models = {mid: _spec(mid, raw) for mid, raw in raw_models.items()}
    speakers = sorted(mid for mid, spec in models.items() if spec.speaker)
    if len(speakers) > 1:
        raise ModelError("bad_manifest", f"The model manifest {path} marks more than one "
                         f"speaker model: {', '.join(speakers)}.")
    return Manifest(models=models, path=path)
