"""Each package's public names, pinned: a package that gains or loses one fails here.

A package's ``__all__`` names its public submodules (every module or subpackage whose name
has no leading underscore) and the names it re-exports. Read from the source (nothing is
imported), so the check is instant and never loads Qt or a model library. When a package
gains or loses a module or an export on purpose, change ``PINNED`` in the same commit.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "desktop_agent"

PINNED: dict[str, set[str]] = {
    "desktop_agent": {"adapters", "audio", "cli", "compose", "core", "devtools", "gui", "runtime"},
    "desktop_agent.adapters": {
        "asr", "audio", "desktop", "embed", "heap_trim", "knowledge", "listening", "llm", "mcp",
        "models", "offline", "paths", "speech_server", "store", "tts",
    },
    "desktop_agent.adapters.speech_server": {"asr_wyoming", "fallback", "probe", "tts_wyoming",
                                             "wyoming_link"},
    "desktop_agent.adapters.desktop": {
        "autostart", "child_env", "clipboard_xclip", "desktop_desk", "desktop_tools",
        "instance_client", "instance_protocol", "key_thread", "launcher", "media_mpris",
        "portal_bus", "portal_keyboard",
        "portal_protocol", "portal_request", "portal_shortcuts", "volume_pactl",
        "x11_global_key", "x11_typing",
    },
    "desktop_agent.adapters.embed": {"embed_minilm", "vector_cache"},
    "desktop_agent.adapters.asr": {"asr_whisper"},
    "desktop_agent.adapters.audio": {
        "audio_devices", "audio_files", "audio_io", "device_audio",
    },
    "desktop_agent.adapters.knowledge": {
        "doc_text", "knowledge_db", "knowledge_files", "knowledge_sqlite", "knowledge_vectors",
    },
    "desktop_agent.adapters.listening": {"speex", "turn_smart", "vad_silero"},
    "desktop_agent.adapters.llm": {
        "cpu_features", "llm_call_grammar", "llm_claims", "llm_composite", "llm_grammar",
        "llm_llama", "llm_messages", "llm_openai", "llm_probe", "llm_verdict", "openai_http",
        "verdict_server",
    },
    "desktop_agent.adapters.mcp": {"mcp_client", "mcp_desk", "mcp_files"},
    "desktop_agent.adapters.models": {"model_files", "model_import", "model_resolver"},
    "desktop_agent.adapters.store": {
        "history_store", "settings_store", "sqlite_files", "store_connection", "store_records",
        "store_sqlite", "tools_builtin", "write_desk",
    },
    "desktop_agent.adapters.tts": {"tts_piper"},
    "desktop_agent.audio": {
        "backend", "canceller_health", "capture", "capture_trace", "chime", "echo_gate",
        "far_alignment", "frames", "gains", "mic_history", "playback_turns", "player", "reference",
        "resample", "ring", "speech_chunk", "virtual",
    },
    "desktop_agent.cli": {
        "ask", "bench", "desktop_entry", "exit_codes", "instance", "knowledge", "main", "mcp",
        "models", "parser",
    },
    "desktop_agent.compose": {
        "controller", "desktop", "engines", "global_key", "kept_history", "knowledge", "ledger",
        "llm_backend", "mcp", "mcp_settings", "portal_key", "reflection", "replay", "runtime",
        "single_instance", "speech_engines", "tool_meanings",
    },
    "desktop_agent.core": {
        "cancel", "clock", "conversation", "desktop", "embed", "errors", "knowledge", "listening",
        "manifest", "mcp", "ports", "privacy", "reflection", "setting_specs", "settings",
        "speech_server", "text", "tools", "turns",
    },
    "desktop_agent.core.speech_server": {"address"},
    "desktop_agent.core.desktop": {"dictation", "key_repeat", "keysyms", "shortcut", "tap_hold"},
    "desktop_agent.core.mcp": {"config", "retrieval", "tools"},
    "desktop_agent.core.embed": {"cosine", "ExampleIndex", "nearest", "Neighbour", "rank"},
    "desktop_agent.core.conversation": {
        "heard", "history", "knowledge_llm", "openai_chat", "prompts",
    },
    "desktop_agent.core.knowledge": {
        "addresses", "admit", "AnswerPlan", "Calculate", "CALCULATION_FILE", "Calculation",
        "Claim", "claim_text", "ClaimProposer", "derive",
        "clarify_referent", "classify_followup", "compose_answer", "corrected_question",
        "Disposition", "FollowUp", "Followup", "followup", "fusion", "index", "lexical",
        "LexicalProposer", "LIMITATION", "Meaning", "meaning", "OFFER_PHRASE", "paraphrase",
        "plan_answer", "planner", "Quote", "rank_sentences", "Ranked",
        "records", "repeat_units", "rephrase", "Role", "ROLES", "SpokenUnit", "support", "Verdict",
    },
    "desktop_agent.core.listening": {
        "bargein", "bargein_judge", "BargeInDecider", "BargeInSettings", "Decision", "Endpointer",
        "endpointing", "EndpointingSettings", "EndReason", "HallucinationSettings",
        "is_hallucination", "partials", "segmenter", "SegmenterSettings", "SegmentEvent",
        "SpeechSegmenter", "tokens", "Verdict",
    },
    "desktop_agent.core.reflection": {
        "checks", "clock_spans", "gate", "grammars", "reflector", "reflector_prompts",
        "stated_numbers", "verdict", "word_problem_prompts", "word_problems",
    },
    "desktop_agent.core.text": {
        "chunker", "ClauseChunker", "CODE_PHRASE", "fts_query", "markdown", "normalize",
        "normalize_for_speech", "number_words", "passages", "spoken_forms", "vocabulary", "wer",
    },
    "desktop_agent.core.tools": {
        "answer", "args", "calc", "calc_verbs", "calc_words", "catalog", "catalog_desktop",
        "claimed", "clipboard", "confirm", "decision", "launch", "media", "offers", "registry",
        "repair", "router", "semantic", "slips", "specs", "tool_def", "type_text", "units",
        "volume", "weekday", "when", "when_parts", "words", "words_spans", "write_actions",
    },
    "desktop_agent.core.turns": {
        "barge_in", "base", "chunking", "commands", "context", "events", "failures", "machine",
        "policy", "recording", "reflect", "reply", "reply_output", "reports", "spoken_units",
        "states", "stopping", "telemetry", "tool_desk", "user_input", "write_path",
    },
    "desktop_agent.devtools": {
        "bench_answers", "bench_answers_losses", "bench_audio", "bench_bargein", "bench_embed",
        "bench_idle", "bench_index",
        "bench_facts", "bench_mcp", "bench_soak",
        "bench_tools", "bench_tools_losses", "bench_turns", "bench_verdicts", "busy",
        "demo_view_model", "doctor",
        "doctor_servers",
        "eval_asr", "eval_asr_capture", "eval_asr_partials", "eval_endpoint", "gui_screenshots",
        "pulse_daemon", "screenshot_turn", "simulate", "soak_faults", "soak_run", "soak_turns",
        "text_pdf",
        "verdict_grade",
    },
    "desktop_agent.gui": {
        "a11y", "actions_presenter", "alarm_notice", "confirm_card", "conversation",
        "evidence_panel", "folder_list", "heard_panel", "latency", "ledger_panel", "main_window",
        "mcp_settings", "menus", "meters", "privacy_menu", "ptt", "server_test", "settings_dialog",
        "shortcut_sheet",
        "state_diagram", "status", "theme", "tray", "turn_gate", "window_panes", "window_remote",
    },
    "desktop_agent.runtime": {
        "alarm_clock", "audio_workers", "bargein_tracker", "capture_router", "command_table",
        "controller", "controller_commands", "controller_ports", "dictation", "extras",
        "headless",
        "headless_io", "headless_jobs", "headless_turn", "headless_units", "heap_keeper",
        "history_keeper", "instance_server", "jobs", "knowledge_worker", "live_settings",
        "llm_worker", "payloads", "playback_driver", "playback_monitor", "recorder", "spans",
        "view_api", "worker_link", "workers",
    },
}
"""Every package of the product and its ``__all__``."""


def _packages() -> dict[str, Path]:
    inits = sorted(PKG.rglob("__init__.py"))
    return {".".join(p.parent.relative_to(PKG.parent).parts): p.parent for p in inits}


def _init(package: str) -> ast.Module:
    return ast.parse((_packages()[package] / "__init__.py").read_text(encoding="utf-8"))


def _all(package: str) -> list[str] | None:
    for node in _init(package).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            return list(ast.literal_eval(node.value))
    return None


def _public_modules(folder: Path) -> set[str]:
    out = set()
    for child in folder.iterdir():
        if child.name.startswith(("_", ".")):
            continue
        if child.is_dir() and (child / "__init__.py").is_file():
            out.add(child.name)
        elif child.suffix == ".py":
            out.add(child.stem)
    return out


def _bound(package: str) -> set[str]:
    """Names the package's __init__.py binds at its top level."""
    out: set[str] = set()
    for node in _init(package).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def test_every_package_is_pinned() -> None:
    assert sorted(_packages()) == sorted(PINNED)


@pytest.mark.parametrize("package", sorted(PINNED))
def test_all_is_as_pinned(package: str) -> None:
    names = _all(package)
    assert names is not None, f"{package} has no __all__"
    assert len(names) == len(set(names)), f"{package}.__all__ names something twice"
    assert set(names) == PINNED[package]


@pytest.mark.parametrize("package", sorted(PINNED))
def test_every_public_module_is_in_all(package: str) -> None:
    missing = _public_modules(_packages()[package]) - set(_all(package) or ())
    assert not missing, f"{package}: public modules missing from __all__: {sorted(missing)}"


@pytest.mark.parametrize("package", sorted(PINNED))
def test_every_name_in_all_exists(package: str) -> None:
    known = _public_modules(_packages()[package]) | _bound(package)
    unknown = set(_all(package) or ()) - known
    assert not unknown, f"{package}.__all__ names what does not exist: {sorted(unknown)}"


@pytest.mark.parametrize("package", sorted(PINNED))
def test_every_package_says_what_it_is(package: str) -> None:
    assert ast.get_docstring(_init(package)), f"{package}/__init__.py has no docstring"
