"""Tools around the product: doctor, benchmarks, evaluation, screenshots, soak.

Nothing in the product (core, audio, adapters, runtime, gui, compose) imports this package.
"""

__all__ = [
    "bench_answers",
    "bench_answers_losses",
    "bench_audio",
    "bench_bargein",
    "bench_embed",
    "bench_facts",
    "bench_idle",
    "bench_index",
    "bench_mcp",
    "bench_soak",
    "bench_tools",
    "bench_tools_losses",
    "bench_turns",
    "bench_verdicts",
    "busy",
    "demo_view_model",
    "doctor",
    "doctor_servers",
    "eval_asr",
    "eval_asr_capture",
    "eval_asr_partials",
    "eval_endpoint",
    "gui_screenshots",
    "pulse_daemon",
    "screenshot_turn",
    "simulate",
    "soak_faults",
    "soak_run",
    "soak_turns",
    "text_pdf",
    "verdict_grade",
]
