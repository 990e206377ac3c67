"""A question put in other words: which of its words the answer says otherwise.

The support gate's question check (``planner.addresses``) wants most of the question's
topic words in the answer. People do not ask in the document's words ("when is the club
*open*" of "the club *meets* on Thursdays"; "can I *keep* a book" of "books are *lent*
for three weeks"), so with sentence vectors (``Meaning``) a missing word may be said
otherwise. Each rule below says why a word may be missing, and what still refuses:

* **Never paraphrased**: names and codes ("Sunday", "Okafor", "E2"): each named item of
  the question must be in the answer.
* The answer sentence must be near the question in meaning (``SENTENCE_MIN``).
* **Framing words** ("what *happens* if", "is there *somewhere* to") and the question's
  **predicate** (the verb after "can I", "do I": "keep", "leave") may be said in any words:
  the answer's nearness in meaning stands for them. What the verb acts on must still be
  there. Not in a "how much" question: there the verb ("cost", "pay") is what is asked.
* A word that the retrieved passages use **elsewhere but not in the answer's passage**
  refuses outright: the documents talk about "seniors", just not here, so "how much do
  seniors pay for the room?" is not answered by the room's price.
* A word that two other sentences of the answer's own passage use ("books" in the
  borrowing rules) counts: the passage is about it. One sentence is not enough: "late"
  in "A late return is charged ..." does not make "Lost books are replaced ..." an
  answer about bringing a book back late.
* Any other word counts when a word, or pair of neighbouring words, of the answer is a
  close paraphrase (``WORD_MIN``): "fix" ~ "repair" 0.63, "shut" ~ "close" 0.59, "pet" ~
  "animals" 0.61, "food" ~ "snacks" 0.71, while "password" ~ "network" is 0.35, "phone"
  ~ "service" 0.48, "captain" ~ "secretary" 0.40, "captain" ~ "member" 0.50. The
  question's word is tried with its next word too ("grown up" ~ "adult" 0.60), a plural
  of the answer singular too ("repairs" -> "repair"); a number is never a paraphrase.

The thresholds were set on the project's own questions (``devtools/data/answers_talk``,
``tests/data/knowledge``), never on a held-out set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from desktop_agent.core.knowledge.claim_text import (
    named_items,
    sentences,
    stem,
    topic_terms,
    topic_words,
    words,
)
from desktop_agent.core.knowledge.index import Passage
from desktop_agent.core.knowledge.meaning import Meaning

SENTENCE_MIN: Final = 0.3
"""Least cosine of the question and the answer sentence (with its heading)."""
WORD_MIN: Final = 0.52
"""Least cosine of a missing question word and its closest word or word pair of the answer."""
FRAME_WORDS: Final = frozenset({"happen", "somewher", "anywher", "someth", "anyth", "tim",
                                "way", "plac", "thing", "kind", "sort", "lik",
                                # light verbs and particles: "put down", "turn up", "take"
                                "put", "down", "tak", "turn", "go", "get", "mak", "com", "let",
                                "still", "actually", "really", "allow", "abl"})
"""Stems of words that frame a question rather than name what it is about."""
AUXILIARIES: Final = frozenset({"can", "could", "do", "does", "did", "should", "must", "may",
                                "might", "will", "would", "shall", "am", "is", "are"})
PRONOUNS: Final = frozenset({"i", "we", "you", "they", "he", "she", "one", "someone"})
DO_AUXILIARIES: Final = AUXILIARIES - {"am", "is", "are"}
ARTICLES: Final = frozenset({"the", "a", "an", "my", "your", "our", "their", "this", "that"})
PREPOSITIONS: Final = frozenset({"on", "at", "in", "for", "with", "to", "from", "by", "of",
                                 "during", "after", "before", "until", "about", "into"})
AMOUNT_QUESTIONS: Final = (("how", "much"), ("how", "many"))
"""A question with these words asks for a number: the answer must state one."""
PRICE_QUESTION: Final = ("how", "much")
"""In such a question the verb ("cost", "pay") is what is asked: it is never let go."""
PERSON_WORDS: Final = frozenset(stem(w) for w in """
volunteer staff manager secretary member owner landlord landlady engineer plumber electrician
neighbour neighbor teacher coach instructor librarian warden caretaker receptionist committee
chair chairman chairwoman treasurer captain doctor nurse mechanic technician administrator
team office desk reception helpdesk support service company person people someone anyone
""".split())
"""Words that name who does something when no name is given ("Volunteers repair bikes")."""
NOT_NAMES: Final = frozenset("""
monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
thursdays fridays saturdays sundays january february march april may june july august
september october november december christmas easter
""".split())
"""Capitalised words that name a time, not a person."""


ASKS_PRICE: Final = re.compile(
    r"\b(?:cost|costs|price|prices|priced|fee|fees|fare|fares|charge|charges|charged|pay|paid"
    r"|owe|refund|fine)\b|\bhow much (?:is|are|will|would) (?:it|a|an|the|one|my)\b", re.I)
"""A question about money: "how much is it to rent a towel", "what does a ticket cost"."""
OTHER_QUANTITY: Final = re.compile(
    r"\b(?:weigh|weighs|heavy|litres?|liters?|gallons?|kilos?|kg|grams?|space|room|storage"
    r"|data|memory|time|long|notice|water|power|sugar|salt|fuel)\b", re.I)
"""Words that make "how much" ask for something other than money ("how much water")."""
COSTS_NOTHING: Final = re.compile(
    r"\b(?:is|are|be|go|goes|travel|travels|ride|rides|for|entry|admission|stay|stays)\s+"
    r"free\b|\bfree of charge\b|\bno (?:charge|cost|fee)\b|\bnothing\b"
    r"|\b(?:don't|do not|doesn't|does not|won't|will not) (?:pay|cost|charge)\b|\bincluded\b",
    re.I)
"""Besides an amount, what answers a question about money: that it costs nothing ("dogs
travel free"; not "after a free induction")."""


def asks_price(question: str) -> bool:
    """True when ``question`` asks about money and not about another quantity."""
    return bool(ASKS_PRICE.search(question)) and not OTHER_QUANTITY.search(question)


def asks_amount(q_words: Sequence[str]) -> bool:
    """True when the question's words ask "how much" or "how many"."""
    return any(tuple(q_words[i:i + 2]) in AMOUNT_QUESTIONS for i in range(len(q_words)))


def names_a_person(text: str) -> bool:
    """True when ``text`` names someone.

    A name (a capitalised word inside a sentence that is not a day or month) or a word
    such as "volunteers", "the manager".
    """
    if any(n not in NOT_NAMES for n in named_items(text)):
        return True
    return any(stem(w) in PERSON_WORDS for w in words(text))


def predicate(question: str) -> str:
    """The stem of the verb a question asks about ('' when not plain to see).

    The word after "who" (and an auxiliary): "who *looks* after the keys" (the answer
    must then name someone, ``names_a_person``); the first topic word after an
    auxiliary and a pronoun: "can I *keep* a book",
    "do I *leave* my bike", "how do I get in *touch*"; or, after "does" (or "can", ...)
    and a noun with its article, the last topic word before a preposition: "when does
    the choir *practise*", "what time does the library *shut* on Saturday". Not after
    "is": in "how long is the boiler warranty" the last word is a noun.
    """
    q_words = words(question)
    if q_words[:1] == ["who"]:  # "who *looks* after", "who can *fix*": who does what
        rest = q_words[2:] if len(q_words) > 1 and q_words[1] in AUXILIARIES else q_words[1:]
        terms = topic_terms(" ".join(rest))
        return terms[0] if terms and rest and stem(rest[0]) == terms[0] else ""
    for i in range(len(q_words) - 2):
        if q_words[i] in AUXILIARIES and q_words[i + 1] in PRONOUNS:
            terms = topic_terms(" ".join(q_words[i + 2:]))
            return terms[0] if terms else ""
    for i in range(len(q_words) - 2):
        if q_words[i] in DO_AUXILIARIES and q_words[i + 1] in ARTICLES:
            clause: list[str] = []
            for w in q_words[i + 2:]:
                if w in PREPOSITIONS:
                    break
                clause.append(w)
            terms = topic_terms(" ".join(clause))
            return terms[-1] if len(terms) >= 2 else ""
    return ""


def said_otherwise(question: str, missing: Sequence[str], answer: str,
                   own: Sequence[Passage], others: Sequence[Passage],
                   meaning: Meaning) -> list[str] | None:
    """The ``missing`` question terms the answer says otherwise; None: refused outright.

    Args:
        question: The question.
        missing: Its topic terms (stems) that the answer (with its heading) lacks.
        answer: The answer sentence with its heading.
        own: The answer's passages.
        others: The other retrieved passages.
        meaning: Sentence vectors.

    Returns:
        None when a rule of the module docstring refuses the answer whatever the rest;
        else the terms that count as said (the caller still wants most of the question).
    """
    answer_stems = {stem(w) for w in words(answer)}
    if any(stem(n) not in answer_stems for n in named_items(question)):
        return None
    q_words = words(question)
    pairs = [tuple(q_words[i:i + 2]) for i in range(len(q_words))]
    sims = meaning.similarities(question, [answer])
    if not sims or sims[0] < SENTENCE_MIN:
        return None
    answer_terms = set(topic_terms(answer))
    uses: dict[str, int] = {}
    for p in own:
        for sentence in sentences(p.text):
            terms = set(topic_terms(sentence.text))
            if terms != answer_terms:
                for t in terms:
                    uses[t] = uses.get(t, 0) + 1
    in_own = {t for t, n in uses.items() if n >= 2}
    elsewhere = {t for p in others for t in topic_terms(p.text)} - set(uses)
    spoken = topic_words(question)
    mine = [w for w in topic_words(answer).values() if not w[0].isdigit()]
    pieces = list(dict.fromkeys([
        *mine, *(w[:-1] for w in mine if len(w) > 3 and w.endswith("s")
                 and not w.endswith("ss")),
        *(f"{a} {b}" for a, b in zip(mine, mine[1:], strict=False))]))
    verb = "" if PRICE_QUESTION in pairs else predicate(question)
    said: list[str] = []
    for t in missing:
        if t in FRAME_WORDS or t == verb or t in in_own:
            said.append(t)
        elif t in elsewhere:
            return None
        elif t in spoken and not t[0].isdigit() and max(
                meaning.closest(phrase, pieces) for phrase in _phrases(spoken[t], q_words)
        ) >= WORD_MIN:
            said.append(t)
    return said


def _phrases(word: str, q_words: Sequence[str]) -> list[str]:
    """``word`` alone and with the question's next word ("grown" -> "grown up")."""
    out = [word]
    if word in q_words:
        i = q_words.index(word)
        if i + 1 < len(q_words) and not q_words[i + 1][0].isdigit():
            out.append(f"{word} {q_words[i + 1]}")
    return out
