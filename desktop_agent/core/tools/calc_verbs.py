"""Arithmetic asked with a verb, rewritten as operators: "multiply 36 by 7" -> "36 times 7".

People ask for sums as commands as often as with operators: "divide 1,250 by 16", "add up
19.99, 4.50 and 12.75", "take 350 away from 1000", "subtract 18 from 250", "20 percent off
45", "a 15 percent tip on 62", "split 186 between 4 of us", "a fifth of 340". The
calculator (``core.tools.calc``) reads operators; ``verbs_as_operators`` turns a whole
request of one of these shapes into the operator words it reads ("250 minus 18"), and the
read-back says it that way too ("250 minus 18 is 232", never "subtract 18 from 250 is 232").
Only whole expressions of a known shape are rewritten; anything else is left as it was.
Money words after a number ("62 dollars", "80 euros", "£45") are dropped: the sum is the
same. Pure: stdlib only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from desktop_agent.core.tools.calc_words import money_with_cents

_MONEY: Final = re.compile(
    r"(?<=\d)\s*(?:dollars?|bucks|euros?|pounds?|quid|pence|cents?|rupees?|naira|reais|reals?"
    r"|dirhams?|pesos?|yen|yuan|rand|shillings?|francs?|kroner|krona|zloty|lira|riyals?|ringgit)\b"
    r"|[$£€](?=\s*\d)", re.IGNORECASE)
"""Currency after (or, as a sign, before) a number (the calculator has no units: "pounds"
after a number is money here; weights go to the unit converter)."""
_MONEY_AFTER_NUMBER: Final = re.compile(r"(?<=\d) (?:dollar|euro|pound) (?=[a-z])",
                                        re.IGNORECASE)
"""'a 45 dollar shirt': the currency word inside a noun phrase."""
_AN_ITEM: Final = re.compile(r"\b(?:an? )?(\S*\d\S*) (?:[a-z]+ ){0,2}?(?:shirt|bill|meal|"
                             r"ticket|item|dress|jacket|order|purchase|price|total|coat|"
                             r"pair of shoes)\b", re.IGNORECASE)
"""'a 45 shirt' -> '45': the price of one thing."""
_NUMBERISH: Final = re.compile(
    r"\d|\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen"
    r"|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty"
    r"|seventy|eighty|ninety|hundred|thousand|million|dozen)\b", re.IGNORECASE)
"""An operand holds a number: "add the flour to the butter" is no sum."""
_NUMBER_END: Final = re.compile(r"\b(?:hundred|thousand|million|billion)$")
_FRACTIONS: Final = {"fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
                     "tenth": 10, "twelfth": 12, "twentieth": 20, "hundredth": 100}
_FRACTION_OF: Final = re.compile(
    r"\b(?:(?P<n>\d+|two|three|four|five|six|seven|eight|nine)\s+)?(?:a\s+|one\s+)?"
    r"(?P<f>" + "|".join(_FRACTIONS) + r")s?\s+of\b", re.IGNORECASE)
_FILLER: Final = re.compile(r"\b(?:um+|uh+|erm+|er)\b,?", re.IGNORECASE)
"""A hesitation ("erm, if I've got 23 and I spend, um, 7.49"): not part of the sum."""
_SMALL: Final = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9}
_TAIL: Final = r"(?:\s+(?:of us|people|persons|ways|friends|each))?"
_ONE_NUMBER: Final = r"(?:(?!.*\b(?:plus|minus|times|divided|multiplied|over|and then)\b).+)"
"""What "double", "halve" or "triple" applies to: one number, not a sum ("double 5 plus 3"
is not read)."""


def _plus(items: str) -> str:
    """A list in operator words: "19.99, 4.50 and 12.75" -> "19.99 plus 4.50 plus 12.75".

    "two hundred and five" stays one number.
    """
    parts: list[str] = []
    # "1,450 and 975": a thousands comma is no list's
    for piece in re.split(r"\s*,(?!\d{3}\b)\s*(?:and\s+)?|\s+and\s+|\s+plus\s+", items.strip()):
        if parts and _NUMBER_END.search(parts[-1]) and piece and piece[0].isalpha():
            parts[-1] += " and " + piece  # "two hundred and five": one number
        elif piece:
            parts.append(piece)
    return " plus ".join(parts) if len(parts) > 1 else items


_SHAPES: Final[tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...]] = tuple(
    (re.compile(pattern, re.IGNORECASE), rewrite) for pattern, rewrite in (
        (r"^multiply (?P<a>.+?) (?:by|and|with) (?P<b>.+)$",
         lambda m: f"{m['a']} times {m['b']}"),
        (r"^(?:divide|split|share) (?P<a>.+?) (?:by|between|among|amongst|into)"
         rf" (?P<b>.+?){_TAIL}$",
         lambda m: f"{m['a']} divided by {m['b']}"),
        (r"^(?:so )?(?:if |when )?(?:we|i|you|they)(?: need to| want to| have to| are going to"
         r"| 're going to)? (?:split|share|divide)(?: up)? (?:(?:a|the) (?:bill|cost|total"
         r"|check|tab|price|fare|meal)(?: of)? )?(?P<a>.+?) (?:between|among|amongst|by)"
         rf" (?P<b>\S+?){_TAIL}(?: evenly| equally)?,? (?:how much|what)\b.*$",
         lambda m: f"{m['a']} divided by {m['b']}"),
        # "if I've got 23 and I spend 7.49, how much have I got left?"
        (r"^(?:so )?(?:if |say )?(?:i|we|you)(?:'ve| have)?(?: got| had)? (?P<a>.+?),? and"
         r"(?: then)?(?: i| we| you)? (?:spend|spent|pay|paid|use|used|give away|gave away"
         r"|lose|lost|eat|ate|sell|sold)(?: out)?,? (?P<b>.+?),? (?:how much|how many|what)\b"
         r"[^,]*\b(?:left|remaining|left over)\b.*$",
         lambda m: f"{m['a']} minus {m['b']}"),
        # "if I have 3 boxes of 24, how many is that"
        (r"^(?:so )?(?:if |say )?(?:i|we|you|there)(?:'ve| have| are| is)?(?: got)?(?: bought"
         r"| buy| ordered| order| need)? (?P<a>\S+) (?:boxes|packs|packets|bags|crates|cartons"
         r"|rows|trays|sets|cases|bottles|tins|jars|batches|groups|teams|shelves|bundles|rolls)"
         r" of (?P<b>[^\s,]+)(?: [a-z]+)?,? (?:how many|what(?:'s| is) that)\b.*$",
         lambda m: f"{m['a']} times {m['b']}"),
        # "we are 7 persons and the bill is 245 dirham, how much each one pays?"
        (r"^.*?\b(?:we are|we're|there are) (?P<b>\d+)(?: persons| people| of us)?\b.*?"
         r"\b(?:bill|total|cost|price) (?:is|was|comes to) (?P<a>\d+(?:\.\d+)?)\b.*"
         r"\bhow much\b.*\beach\b.*$",
         lambda m: f"{m['a']} divided by {m['b']}"),
        # "we sold 43 raffle tickets at 2.50 each, how much did that bring in?"
        (r"^.*?\b(?P<a>\d+) (?:[a-z']+ ){0,3}?(?:at|for) (?P<b>\d+(?:\.\d+)?) (?:each|apiece"
         r"|a (?:piece|head|ticket|go)),?(?: and)? (?:how much|what)\b.*$",
         lambda m: f"{m['a']} times {m['b']}"),
        (rf"^double (?P<a>{_ONE_NUMBER})$", lambda m: f"{m['a']} times 2"),
        (rf"^triple (?P<a>{_ONE_NUMBER})$", lambda m: f"{m['a']} times 3"),
        (rf"^halve (?P<a>{_ONE_NUMBER})$", lambda m: f"{m['a']} divided by 2"),
        # "I got forty-two out of fifty on the quiz, what's that as a percentage?"
        (r"^(?:i |we |you |she |he |they )?(?:got|scored|get|have)? ?(?P<a>[\w.-]+)"
         r" out of (?P<b>[\w.-]+)(?: (?:on|in|for) (?:the|my|a|an) [a-z]+)?,?"
         r" (?:what(?:'s| is) that )?as an? percent(?:age)?\W*$",
         lambda m: f"{m['a']} divided by {m['b']} times 100"),
        # "rent's 1,250 a month, times that by twelve"
        (r"^[^\d]*?(?P<a>\d[\d,.]*)\b[^\d,]*,\s*(?:times|multiply) (?:that|it) by (?P<b>.+)$",
         lambda m: f"{m['a']} times {m['b']}"),
        (r"^(?:add|sum|total)(?: up| together)? (?P<a>.+?) (?:to|onto) (?P<b>.+)$",
         lambda m: f"{m['b']} plus {m['a']}"),
        (r"^(?:add|sum|total)(?: up| together)? (?P<x>.+?)(?: together)?$",
         lambda m: _plus(m["x"])),
        (r"^(?:the )?(?:sum|total) of (?P<x>.+)$", lambda m: _plus(m["x"])),
        (r"^(?:the )?product of (?P<a>.+?) and (?P<b>.+)$",
         lambda m: f"{m['a']} times {m['b']}"),
        (r"^(?:subtract|deduct) (?P<a>.+?) from (?P<b>.+)$",
         lambda m: f"{m['b']} minus {m['a']}"),
        (r"^take (?:away )?(?P<a>.+?) (?:away )?(?:from|off) (?P<b>.+)$",
         lambda m: f"{m['b']} minus {m['a']}"),
        (r"^knock (?P<a>.+?) off (?P<b>.+)$", lambda m: f"{m['b']} minus {m['a']}"),
        (r"^(?P<a>\S+?) ?(?:percent|per cent|%) off (?:of )?(?P<b>.+)$",
         lambda m: f"{m['b']} minus {m['a']} percent of {m['b']}"),
        (r"^(?:an? )?(?P<a>\S+?) ?(?:percent|per cent|%) (?:tip|tax|vat|discount|service charge"
         r"|interest|commission|deposit|raise|increase|rise)? ?on (?:top of )?(?P<b>.+)$",
         lambda m: f"{m['a']} percent of {m['b']}"),
    ))


_WORD_PROBLEM: Final = re.compile(
    r"\b(?:spend|spent|pay|paid|use|used|give away|gave away|lose|lost|eat|ate|sell|sold)\b"
    r".*\bhow (?:much|many)\b.*\b(?:left|remaining|left over)\b"
    r"|\b(?:boxes|packs|packets|bags|crates|cartons|rows|trays|sets|cases|bottles|tins|jars"
    r"|batches|groups|teams|shelves|bundles|rolls) of \S+.*\b(?:how many|what(?:'s| is) that)\b"
    r"|\b(?:we are|we're|there are) \d+\b.*\b(?:bill|total|cost|price) (?:is|was|comes to)"
    r" [$£€]?\d+.*\bhow much\b.*\beach\b"
    r"|\d (?:[a-z']+ ){0,3}?(?:at|for) [$£€]?\d+(?:\.\d+)? (?:each|apiece|a (?:piece|head"
    r"|ticket|go)),?(?: and)?(?: uh+| um+)?,? (?:how much|what)\b",
    re.IGNORECASE)


def word_problem(text: str) -> bool:
    """True for a word problem that ``verbs_as_operators`` reads.

    "I've got 23 and spend 7.49, how much is left", "3 boxes of 24, how many is that", "we
    sold 43 tickets at £2.50 each, how much did that bring in".
    """
    return bool(_WORD_PROBLEM.search(text))


def verbs_as_operators(text: str) -> str:
    """``text`` (one arithmetic request, lower case, without "what is") in operator words.

    "multiply 36 by 7" -> "36 times 7"; "add up 19.99, 4.50 and 12.75" -> "19.99 plus 4.50
    plus 12.75"; "take 350 away from 1000" -> "1000 minus 350"; "20 percent off 45" -> "45
    minus 20 percent of 45". Text of no known shape
    is returned as it was, money words after numbers dropped.
    """
    text = _MONEY.sub("", money_with_cents(text))  # "126 pounds 40": 126.40, not 126 40
    text = _MONEY_AFTER_NUMBER.sub(" ", text)
    text = " ".join(_FILLER.sub(" ", text).split())
    for pattern, rewrite in _SHAPES:
        found = pattern.match(text)
        if found and all(_NUMBERISH.search(v) for v in found.groupdict().values()):
            text = rewrite(found)
            break
    return _AN_ITEM.sub(r"\1", text)


def fractions_as_numbers(text: str) -> str:
    """Fifths to hundredths as numbers: "a fifth of 340" -> "(1/5) * 340".

    The calculator reads halves, thirds and quarters itself.
    """
    return _FRACTION_OF.sub(_fraction, text)


def _fraction(found: re.Match[str]) -> str:
    count = found["n"] or "1"
    n = int(count) if count.isdigit() else _SMALL[count.lower()]
    return f" ({n}/{_FRACTIONS[found['f'].lower()]}) * "
