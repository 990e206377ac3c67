"""Verdict-gated speech: deterministic checks of spoken answers, the confession gate, prompts.

Pure and stdlib-only, like the rest of ``core``: the turn machine (core/turns/reflect.py)
decides *when* to reflect and what to do with a verdict; this package decides *what* the
verdict is when a literal check applies (``checks``; the time between two clock times in
``clock_spans``) or the question is a word problem
(``word_problems``: the model writes the computation under a grammar, the calculator works
it), whether a repair may confess (``gate``), the grammars of the model's constrained runs
(``grammars``), and the words a continuation is built from (``prompts``).
"""

__all__ = [
    "checks",
    "clock_spans",
    "gate",
    "grammars",
    "reflector",
    "reflector_prompts",
    "stated_numbers",
    "verdict",
    "word_problem_prompts",
    "word_problems",
]
