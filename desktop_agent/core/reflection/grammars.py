"""GBNF grammars of the reflector's constrained runs, built from fixed shapes (pure text).

The model writes under these grammars (llama.cpp's GBNF dialect; an adapter decodes them):

- ``EXPRESSION``: one arithmetic expression in the calculator's syntax ("3.5 * 60"):
  numbers, ``+ - * /``, parentheses, single spaces around operators.
- ``PROGRAM``: a few named steps, one a line, then the answer ("hours = 3.5", then
  "answer = hours * 60"):
  the same expressions, where a name may stand for a number.
- ``sentence_grammar(check)``: a sentence that keeps a ``SentenceCheck`` by construction
  (exactly N words, each word longer than the one before, must contain or start with
  given words), as a finite automaton over (words so far, last word's length, required
  words found), pruned to the states from which the sentence can still be finished.

Every grammar here is checked by llama.cpp's own parser in the adapter tests (an invalid
grammar would crash the process): the two constants, and the sentence grammars of the
checks the question finders can produce.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from desktop_agent.core.reflection.checks import SentenceCheck

_ARITHMETIC: Final = (
    'expr ::= term (" " [-+] " " term){0,8}\n'
    'term ::= factor (" " [*/] " " factor){0,8}\n'
    'num ::= [0-9]{1,9} ("." [0-9]{1,6})?\n')
EXPRESSION: Final = ('root ::= expr\n' + _ARITHMETIC
                     + 'factor ::= num | "(" expr ")"\n')
"""One arithmetic expression: what ``core.tools.calc.evaluate`` reads, nothing else."""
PROGRAM: Final = ('root ::= line{0,5} "answer = " expr\n'
                  'line ::= name " = " expr "\\n"\n'
                  'name ::= [a-z] [a-z_]{0,19}\n' + _ARITHMETIC
                  + 'factor ::= num | name | "(" expr ")"\n')
"""Named steps, one a line, then ``answer = <expression>`` (``word_problems.program_value``)."""

MAX_WORDS: Final = 20
"""A sentence without a word count has at most this many words (and at least 3)."""
MAX_LETTERS: Final = 15
"""Longest word of a sentence whose words grow (the automaton has a state per length)."""
_WORD: Final = "[A-Za-z]{1,20} (\"'\" [a-z]{1,2})?"
"""Any word: letters, and a contraction ("don't", "sea's"), one word to ``words_of``."""

_State = tuple[int, int, frozenset[str]]
"""Words so far, the last word's length (only when words must grow), required words found."""


def _literal(word: str) -> str:
    """``word`` as GBNF, its first letter in either case ('[Rr] "iver"')."""
    head = f"[{word[0].upper()}{word[0]}]"
    return f'{head} "{word[1:]}"' if len(word) > 1 else head


class _Automaton:
    """The sentences that keep one check: its states and the words that move between them."""

    def __init__(self, check: SentenceCheck) -> None:
        self.check = check
        self.required = frozenset(check.contains) | ({check.starts} if check.starts else set())
        self.top = check.n if check.n is not None else MAX_WORDS
        self.least = check.n if check.n is not None else 3

    def accepting(self, state: _State) -> bool:
        words, _, found = state
        return self.least <= words <= self.top and found == self.required

    def moves(self, state: _State) -> Iterator[tuple[str, _State]]:
        """(the GBNF of a word, the state after it) for each word allowed next."""
        words, last, found = state
        if words >= self.top:
            return
        grow = self.check.increasing
        if words == 0 and self.check.starts:
            start = self.check.starts
            yield _literal(start), (1, len(start) if grow else 0, found | {start})
            return
        for word in sorted(self.required - found):
            if not grow or len(word) > last:
                yield _literal(word), (words + 1, len(word) if grow else 0, found | {word})
        if grow:
            for length in range(last + 1, MAX_LETTERS + 1):
                yield f"[A-Za-z]{{{length}}}", (words + 1, length, found)
        else:
            yield "word", (words + 1, 0, found)

    def alive(self) -> set[_State]:
        """The reachable states from which an accepting state can still be reached."""
        start: _State = (0, 0, frozenset())
        seen, todo = {start}, [start]
        edges: dict[_State, list[_State]] = {}
        while todo:
            state = todo.pop()
            edges[state] = [after for _, after in self.moves(state)]
            for after in edges[state]:
                if after not in seen:
                    seen.add(after)
                    todo.append(after)
        live = {s for s in seen if self.accepting(s)}
        changed = True
        while changed:
            changed = False
            for state in seen - live:
                if any(after in live for after in edges[state]):
                    live.add(state)
                    changed = True
        return live


def _name(kind: str, state: _State, found_ids: dict[frozenset[str], int]) -> str:
    words, last, found = state
    return f"{kind}-{words}-{last}-{found_ids.setdefault(found, len(found_ids))}"


def sentence_grammar(check: SentenceCheck) -> str:
    """GBNF of one sentence that keeps ``check``.

    Words, at most a comma between two of them, and a full stop or an exclamation mark at
    the end.

    Raises:
        ValueError: No sentence can keep ``check`` (e.g. 20 words, each longer than the last).
    """
    automaton = _Automaton(check)
    live = automaton.alive()
    start: _State = (0, 0, frozenset())
    if start not in live:
        raise ValueError(f"no sentence keeps {check}")
    ids: dict[frozenset[str], int] = {}
    rules = [f"root ::= {_name('w', start, ids)}"]
    for state in sorted(live, key=lambda s: (s[0], s[1], sorted(s[2]))):
        moves = [f"{gbnf} {_name('a', after, ids)}" for gbnf, after in automaton.moves(state)
                 if after in live]
        if moves:
            rules.append(f"{_name('w', state, ids)} ::= " + " | ".join(moves))
        after_word = []
        if automaton.accepting(state):
            after_word.append("[.!]")
        if any(after in live for _, after in automaton.moves(state)):
            after_word.append(f"\",\"? \" \" {_name('w', state, ids)}")
        if state[0] > 0:
            rules.append(f"{_name('a', state, ids)} ::= " + " | ".join(after_word))
    rules.append(f"word ::= {_WORD}")
    return "\n".join(rules) + "\n"
