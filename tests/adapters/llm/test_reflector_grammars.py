"""The reflector's grammars on llama.cpp's own parser and sampler (the GGUF's vocabulary only).

An invalid GBNF would crash the process mid-turn, and a grammar that admits a wrong sentence
would make the repair wrong by construction. So every grammar the reflector can build is
parsed by llama.cpp, and texts are walked through llama.cpp's grammar sampler token by
token (the default model's tokenizer): what the checks accept, the grammar accepts, and
what they refuse, it refuses. Loading the vocabulary alone takes about a second.
"""

from __future__ import annotations

import ctypes
import math
from typing import Any

import pytest

from desktop_agent.core.reflection.checks import SentenceCheck, find_check
from desktop_agent.core.reflection.grammars import EXPRESSION, PROGRAM, sentence_grammar

pytestmark = pytest.mark.models

QUESTIONS = [
    "Write one sentence of exactly six words about the sea.",
    "Write one sentence of exactly two words.",
    "Write a sentence of exactly twelve words about winter.",
    "Write a sentence of three words where each word is longer than the one before.",
    "Write a sentence of seven words where each word is longer than the one before.",
    'Write one sentence that uses the words "river" and "moon".',
    'Write one sentence of exactly five words that includes the word "garden".',
    'Write a sentence that starts with the word "Yesterday".',
    "In exactly six words, describe the moon.",
    "Describe a forest in exactly nine words.",
]


def _sampler(vocab: Any, gbnf: str) -> Any:
    import llama_cpp

    return llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")


def _walks(vocab: Any, gbnf: str, text: str) -> bool:
    """True when llama.cpp's sampler for ``gbnf`` takes ``text`` token by token, then may end."""
    import llama_cpp

    sampler = _sampler(vocab, gbnf)
    assert sampler, gbnf
    tokens = (llama_cpp.llama_token * 256)()
    n = llama_cpp.llama_tokenize(vocab, text.encode("utf-8"), len(text.encode("utf-8")),
                                 tokens, 256, False, False)
    one = (llama_cpp.llama_token_data * 1)()
    arr = llama_cpp.llama_token_data_array(data=one, size=1, selected=-1, sorted=False)

    def allowed(tok: int) -> bool:
        one[0].id, one[0].logit, one[0].p = tok, 0.0, 0.0
        arr.size, arr.selected = 1, -1
        llama_cpp.llama_sampler_apply(sampler, ctypes.byref(arr))
        return math.isfinite(one[0].logit)

    try:
        for tok in tokens[:n]:
            if not allowed(tok):
                return False
            llama_cpp.llama_sampler_accept(sampler, tok)
        return allowed(llama_cpp.llama_vocab_eos(vocab))
    finally:
        llama_cpp.llama_sampler_free(sampler)


def test_llama_cpp_parses_every_reflector_grammar(vocab: Any) -> None:
    assert not _sampler(vocab, "root ::= undefined-rule")  # the check can fail
    checks = [find_check(q) for q in QUESTIONS]
    checks += [SentenceCheck("words", n=4, increasing=True, contains=("river",), starts="i"),
               SentenceCheck("words", n=20), SentenceCheck("words", n=1)]
    for gbnf in [EXPRESSION, PROGRAM, *(sentence_grammar(c) for c in checks
                                        if isinstance(c, SentenceCheck))]:
        sampler = _sampler(vocab, gbnf)
        assert sampler, gbnf[:300]
        import llama_cpp

        llama_cpp.llama_sampler_free(sampler)


def test_the_expression_grammar_is_the_calculators_syntax(vocab: Any) -> None:
    for good in ("3.5 * 60", "(10 + 20 + 30) / 3", "40 - 40 * 25 / 100", "36"):
        assert _walks(vocab, EXPRESSION, good), good
    for bad in ("3.5*60", "x + 1", "3.5 * 60 = 210", "2 ** 3", "", "sqrt(4)"):
        assert not _walks(vocab, EXPRESSION, bad), bad
    assert _walks(vocab, PROGRAM, "hours = 3.5\nanswer = hours * 60")
    assert _walks(vocab, PROGRAM, "answer = 12 - 5")
    assert not _walks(vocab, PROGRAM, "hours = 3.5")  # no answer
    assert not _walks(vocab, PROGRAM, "Hours = 3.5\nanswer = Hours * 60")


@pytest.mark.parametrize(("check", "good", "bad"), [
    (SentenceCheck("words", n=6), ["The sea is calm and blue.", "Waves, they roll, and roll on!"],
     ["The sea is calm.", "The sea is calm and so blue.", "The sea is calm and blue"]),
    (SentenceCheck("words", n=4, increasing=True), ["I am not happy.", "A big brown rabbit."],
     ["I am so happy.", "I am not.", "A big brown rabbit ran."]),
    (SentenceCheck("words", contains=("river", "moon")),
     ["The moon lit the river.", "River and moon shine tonight."],
     ["The moon rose.", "The rivers and the moon."]),
    (SentenceCheck("words", starts="yesterday"), ["Yesterday we went out."],
     ["We went out yesterday.", "Yesterdays are gone now."]),
    (SentenceCheck("words", n=5, contains=("garden",)), ["I love the garden outside."],
     ["I love the park outside.", "I love the garden."]),
])
def test_a_sentence_grammar_takes_exactly_what_its_check_takes(
        vocab: Any, check: SentenceCheck, good: list[str], bad: list[str]) -> None:
    gbnf = sentence_grammar(check)
    for text in good:
        assert not check.problem(text) and _walks(vocab, gbnf, text), text
    for text in bad:
        assert not _walks(vocab, gbnf, text), text
