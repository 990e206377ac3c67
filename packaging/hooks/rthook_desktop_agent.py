"""Runtime hook: runs inside the bundle before desktop_agent is imported.

1. OpenMP: llama.cpp links the system's libgomp, CTranslate2 carries its own renamed copy,
   so two OpenMP runtimes live in one process. Both read these variables when they load.
   The engines already pass explicit thread counts (compose/engines.py); the defaults here
   cap any region that does not, and make idle OpenMP workers sleep instead of spinning on
   the cores the other runtime (or onnxruntime, which has its own pool) is using. A value
   the user set is kept.
2. ctypes.util.find_library("portaudio") (sounddevice) and the speexdsp lookup read the
   system's linker cache, which knows nothing of the bundle: look in the bundle first, so
   the app runs where libportaudio2/libspeexdsp1 are not installed.
"""

import ctypes.util
import glob
import os
import sys

BUNDLE_OMP_DEFAULTS = {"OMP_NUM_THREADS": "2", "OMP_WAIT_POLICY": "PASSIVE"}
_OWN = [n for n in os.environ.get("DESKTOP_AGENT_OWN_ENV", "").split(",") if n]
for _name, _value in BUNDLE_OMP_DEFAULTS.items():
    if _name not in os.environ:  # ours, not the user's: children do not get it
        os.environ[_name] = _value
        _OWN.append(_name)
os.environ["DESKTOP_AGENT_OWN_ENV"] = ",".join(_OWN)  # read by adapters/offline.py's OWN_ENV

_system_find_library = ctypes.util.find_library


def _bundle_find_library(name):
    hits = sorted(glob.glob(os.path.join(sys._MEIPASS, f"lib{name}.so*")))
    return hits[0] if hits else _system_find_library(name)


ctypes.util.find_library = _bundle_find_library
