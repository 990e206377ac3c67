"""The command line starts light: importing it and building its parser loads no heavy library.

``desktop-agent --help``, a typo, or a client command must not pay for Qt, numpy or a model
library; each command imports what it needs when it runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

HEAVY = ("numpy", "PySide6", "shiboken6", "sounddevice", "faster_whisper", "llama_cpp", "piper",
         "onnxruntime", "onnx", "ctranslate2", "soxr", "platformdirs", "pypdf", "tomli_w", "mcp",
         "mcp_types", "jsonschema")

PROBE = """
import json, sys
import desktop_agent.cli
from desktop_agent.cli.parser import _parser
_parser().parse_args(["bench", "tools"])
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def test_the_cli_and_its_parser_import_nothing_heavy() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert "desktop_agent" in loaded  # the probe really imported the package
    assert sorted(loaded & set(HEAVY)) == []
