"""The CPU check that stands between llama.cpp and a SIGILL on CPUs without AVX2."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_agent.adapters.llm import cpu_features
from desktop_agent.adapters.llm.cpu_features import cpu_report, parse_cpuinfo, require_llm_cpu
from desktop_agent.core.errors import ModelError

HASWELL = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz
flags\t\t: fpu sse sse2 ssse3 fma cx16 sse4_1 sse4_2 popcnt avx f16c bmi1 avx2 bmi2

processor\t: 1
model name\t: Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz
flags\t\t: fpu sse sse2 ssse3 fma cx16 sse4_1 sse4_2 popcnt avx f16c bmi1 avx2 bmi2
"""
# A Sandy Bridge laptop: AVX but no AVX2, FMA, F16C or BMI2.
SANDY_BRIDGE = """processor\t: 0
model name\t: Intel(R) Core(TM) i5-2520M CPU @ 2.50GHz
flags\t\t: fpu vme de pse tsc msr pae sse sse2 ssse3 cx16 sse4_1 sse4_2 popcnt aes xsave avx
"""
# An ARM kernel writes 'Features', never 'flags'.
ARM = """processor\t: 0
BogoMIPS\t: 48.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32
"""


def test_a_haswell_cpu_has_everything_llama_cpp_needs() -> None:
    report = parse_cpuinfo(HASWELL)
    assert report.known and report.ok
    assert report.missing == ()
    assert report.model_name.startswith("Intel(R) Core(TM) i7-4770")


def test_a_cpu_without_avx2_is_missing_exactly_the_flags_it_lacks() -> None:
    report = parse_cpuinfo(SANDY_BRIDGE)
    assert report.known and not report.ok
    assert report.missing == ("avx2", "fma", "f16c", "bmi2")


def test_no_flags_line_means_unknown_and_nothing_is_refused(tmp_path: Path) -> None:
    assert parse_cpuinfo(ARM) == cpu_features.CpuReport("", frozenset(), (), known=False)
    assert cpu_report(tmp_path / "absent").known is False
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(ARM)
    assert require_llm_cpu(cpuinfo).ok


def test_require_refuses_an_old_cpu_with_a_message_that_says_what_to_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DESKTOP_AGENT_SKIP_CPU_CHECK", raising=False)
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(SANDY_BRIDGE)
    with pytest.raises(ModelError) as info:
        require_llm_cpu(cpuinfo)
    assert info.value.code == "cpu_unsupported"
    assert "i5-2520M" in info.value.message
    assert "AVX2, FMA, F16C, BMI2" in info.value.message
    assert "Illegal instruction" in info.value.message
    assert "LLAMA_CMAKE_ARGS" in info.value.fix
    monkeypatch.setenv("DESKTOP_AGENT_SKIP_CPU_CHECK", "1")
    assert require_llm_cpu(cpuinfo).missing == ("avx2", "fma", "f16c", "bmi2")


def test_this_machine_can_run_the_llama_cpp_it_built() -> None:
    # setup.sh built llama.cpp here with these flags and the model tests run it.
    report = cpu_report()
    assert report.ok, report.missing


def test_the_llm_adapter_refuses_before_llama_cpp_is_imported(tmp_path: Path) -> None:
    """A real process: the refusal comes first, llama_cpp is never loaded (no SIGILL)."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(SANDY_BRIDGE)
    script = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from desktop_agent.adapters.llm import cpu_features
        from desktop_agent.adapters.llm.llm_llama import LlamaLlm
        from desktop_agent.core.errors import ModelError
        cpu_features.CPUINFO = Path({str(cpuinfo)!r})
        try:
            LlamaLlm(Path("/nonexistent.gguf"))
        except ModelError as exc:
            print(exc.code, "llama_cpp" in sys.modules)
    """)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=120, check=True)
    assert out.stdout.split() == ["cpu_unsupported", "False"], out.stderr
