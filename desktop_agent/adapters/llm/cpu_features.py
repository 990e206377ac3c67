"""Does this CPU have the instructions our llama.cpp build uses? Checked before it loads.

scripts/setup.sh builds llama.cpp with AVX, AVX2, FMA, F16C and BMI2 (LLAMA_CMAKE_ARGS),
and the bundle ships that build. On a CPU without them llama.cpp dies with SIGILL (no
Python exception, no message) at its first matrix product. So the LLM adapter calls
``require_llm_cpu()`` before ``import llama_cpp``, and ``doctor`` reports the same check.

Linux only: the flags come from /proc/cpuinfo. Where that file cannot be read (another OS,
a sandbox) nothing is refused: we cannot tell, and the build may well run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from desktop_agent.core.errors import ModelError

LLAMA_REQUIRED_FLAGS: Final = ("avx", "avx2", "fma", "f16c", "bmi2")
"""The /proc/cpuinfo flags matching the GGML_* options in scripts/setup.sh's LLAMA_CMAKE_ARGS."""
CPUINFO: Final = Path("/proc/cpuinfo")
_SKIP_ENV: Final = "DESKTOP_AGENT_SKIP_CPU_CHECK"


@dataclass(frozen=True, slots=True)
class CpuReport:
    """What /proc/cpuinfo says about the instructions llama.cpp needs."""

    model_name: str
    """The CPU's name ('' when unknown)."""
    flags: frozenset[str]
    missing: tuple[str, ...]
    """Required flags this CPU lacks (empty: llama.cpp can run)."""
    known: bool
    """False when the flags could not be read: nothing is known, nothing is refused."""

    @property
    def ok(self) -> bool:
        """True unless the CPU is known to lack a required instruction set."""
        return not self.missing


def parse_cpuinfo(text: str, required: tuple[str, ...] = LLAMA_REQUIRED_FLAGS) -> CpuReport:
    """Read the first processor's flags from /proc/cpuinfo text.

    x86 kernels write ``flags : fpu vme ... avx2 ...``; the first processor block is
    enough (hybrid CPUs expose the same ISA on every core).
    """
    model = ""
    flags: frozenset[str] | None = None
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key = key.strip().lower()
        if key == "model name" and not model:
            model = value.strip()
        elif key == "flags" and flags is None:
            flags = frozenset(value.split())
    if flags is None:
        return CpuReport(model, frozenset(), (), known=False)
    return CpuReport(model, flags, tuple(f for f in required if f not in flags), known=True)


def cpu_report(cpuinfo: Path | None = None) -> CpuReport:
    """The report for this machine (unknown when /proc/cpuinfo cannot be read)."""
    cpuinfo = cpuinfo or CPUINFO
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return CpuReport("", frozenset(), (), known=False)
    return parse_cpuinfo(text)


def require_llm_cpu(cpuinfo: Path | None = None) -> CpuReport:
    """Refuse, with a clear message, to load llama.cpp on a CPU that would die with SIGILL.

    Raises:
        ModelError: code ``cpu_unsupported`` naming the missing instruction sets.
    """
    report = cpu_report(cpuinfo)
    if report.ok or os.environ.get(_SKIP_ENV):
        return report
    name = f" ({report.model_name})" if report.model_name else ""
    raise ModelError(
        "cpu_unsupported",
        f"This CPU{name} lacks {', '.join(m.upper() for m in report.missing)}, which this "
        "build of llama.cpp needs (it would stop with 'Illegal instruction').",
        "Use a computer with an x86-64-v3 CPU (Intel Haswell 2013 or AMD Excavator 2015 and "
        "newer), or build from source with the CPU flags removed from LLAMA_CMAKE_ARGS in "
        f"scripts/setup.sh. {_SKIP_ENV}=1 skips this check.",
    )
