"""An exact calculator for spoken arithmetic. Never ``eval``: a whitelisted AST walk.

The input is text a small model copied from a Whisper transcript, so spoken forms are
mapped to symbols first ("17 times 23", "square root of 16", "15 percent of 80",
"twenty three", "a hundred and five", "one point five", "three and a half", "a dozen",
"a third of 90"). Arithmetic is exact with
``fractions.Fraction`` (0.1 + 0.2 == 3/10); only an irrational step (a square root that is
not a perfect square, a fractional power) falls back to ``float``.

Every failure is ``AgentError("calc_invalid", ...)`` whose message says what to say
instead; no other exception escapes ``evaluate``.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.calc_verbs import fractions_as_numbers, verbs_as_operators
from desktop_agent.core.tools.calc_words import clean_spoken, replace_quantity_words

Number = Fraction | float
"""A calculator value: exact where possible, ``float`` after an irrational step."""

MAX_EXPRESSION_CHARS: Final = 300
"""Longest expression accepted (characters, after trimming)."""
MAX_EXPONENT: Final = 1000
"""Largest ``|exponent|`` of a power."""
MAX_BITS: Final = 20_000
"""Largest numerator or denominator of any step, in bits (about 6,000 digits)."""
MAX_DEPTH: Final = 40
"""Deepest nesting of the expression tree."""

_CODE: Final = "calc_invalid"
_HINT: Final = "Say a calculation like 'what is 17 times 23'."

# --- number words ------------------------------------------------------------------------


# --- spoken operators --------------------------------------------------------------------

_NUM: Final = r"\d+(?:\.\d+)?"
_PREFIX: Final = re.compile(
    r"^\s*(?:(?:hey|ok|okay|so|please|can you|could you|would you|tell me|say)\s+)*"
    r"(?:(?:what\s+is|what's|whats|what\s+are|how\s+much\s+is|how\s+much|calculate|compute|"
    r"work\s+out|figure\s+out|evaluate|solve)\s+)?(?:the\s+(?:answer|result)\s+(?:of|to)\s+)?"
)
_SUFFIX: Final = re.compile(r"(?:\s*(?:\bplease|\bfor me|\bequals|\bis|=|\?|!|\.))+\s*$")
"""What closes a question ("... please?", "... equals", "... is"): whole words only, so
"2500 reais" keeps its word."""
_FUNC_WORDS: Final = (
    (r"\b(?:the\s+)?square\s+root\s+of\b", " sqrt "),
    (r"\bsquare\s+root\b", " sqrt "),
    (r"\broot\s+of\b", " sqrt "),
    (r"√", " sqrt "),
    (r"\b(?:the\s+)?absolute\s+value\s+of\b", " abs "),
    (r"\babsolute\s+value\b", " abs "),
    (r"\bceiling\b", " ceil "),
    (r"\bround(?:ed)?\b", " round "),
    (r"\b(sqrt|abs|round|floor|ceil)\s+of\b", r" \1 "),
)
_OPERATORS: Final = (
    (r"\bto\s+the\s+power\s+of\b|\bto\s+the\s+power\b|\braised\s+to(?:\s+the\s+power\s+of)?\b"
     r"|\bpower\s+of\b|\^", " ** "),
    (r"\bsquared\b", " ** 2 "),
    (r"\bcubed\b", " ** 3 "),
    (r"\bmultiplied\s+by\b|\btimes\b|[×·∙]", " * "),
    (r"\bdivided\s+by\b|\bdivide\s+by\b|\bover\b|[÷∕]", " / "),
    (r"\bplus\b|\badded\s+to\b", " + "),
    (r"\bminus\b|\bnegative\b|\btake\s+away\b|[−–—]", " - "),
    (r"\bmod(?:ulo)?\b", " % "),
    (r"\b(?:a\s+|one\s+)?half\s+of\b", " (1/2) * "),
    (r"\b(?:a\s+)?quarter\s+of\b", " (1/4) * "),
    (r"\b(\d+)\s+quarters\s+of\b", r" (\1/4) * "),
    (r"\b(?:a\s+)?third\s+of\b", " (1/3) * "),
    (r"\b(\d+)\s+thirds\s+of\b", r" (\1/3) * "),
    (r"\b(?:twice|double)\b(?:\s+of\b)?", " 2 * "),
    (r"\bopen\s+(?:bracket|parenthesis|paren)\b", " ( "),
    (r"\bclose\s+(?:bracket|parenthesis|paren)\b", " ) "),
)
_FUNCS: Final = ("sqrt", "abs", "round", "floor", "ceil")


def _spoken_to_symbols(expression: str) -> str:
    text = clean_spoken(expression)
    text = re.sub(r"\s+", " ", text).strip()
    text = _PREFIX.sub("", text, count=1)
    text = _SUFFIX.sub("", text)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)  # 1,234 -> 1234
    text = replace_quantity_words(text)  # "three and a half", "a dozen" too
    text = fractions_as_numbers(verbs_as_operators(text))  # "multiply 3 by 4", "a fifth of"
    for pattern, repl in _FUNC_WORDS:
        text = re.sub(pattern, repl, text)
    # "15 percent of 80" / "15% of 80" / "15 percent" -> a hundredth of 15, times what follows.
    text = re.sub(rf"({_NUM})\s*(?:percent|per\s+cent|%)\s+of\b", r"(\1/100)*", text)
    text = re.sub(rf"({_NUM})\s*(?:percent|per\s+cent)\b", r"(\1/100)", text)
    text = re.sub(rf"({_NUM})\s*%(?!\s*[\d(.])", r"(\1/100)", text)
    for pattern, repl in _OPERATORS:
        text = re.sub(pattern, repl, text)
    text = re.sub(r"(?<=[\d)])\s*x\s*(?=[\d(.])", " * ", text)
    # "sqrt 16" -> "sqrt(16)": a function word binds to the number right after it.
    funcs = "|".join(_FUNCS)
    text = re.sub(rf"\b({funcs})\s*(-?\s*{_NUM})", r"\1(\2)", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text


# --- the evaluator -----------------------------------------------------------------------


def _fail(message: str) -> AgentError:
    return AgentError(_CODE, message)


def _check(value: Number) -> Number:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _fail("That number is too big for me to work out.")
        return value
    if max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_BITS:
        raise _fail("That number is too big for me to work out.")
    return value


def _exact_root(value: Fraction) -> Fraction | None:
    num, den = value.numerator, value.denominator
    rn, rd = math.isqrt(num), math.isqrt(den)
    if rn * rn == num and rd * rd == den:
        return Fraction(rn, rd)
    return None


def _sqrt(value: Number) -> Number:
    if value < 0:
        raise _fail("I can't take the square root of a negative number.")
    if isinstance(value, Fraction):
        exact = _exact_root(value)
        if exact is not None:
            return exact
    return math.sqrt(value)


def _as_int(value: Number, what: str) -> int:
    if isinstance(value, float):
        if not value.is_integer():
            raise _fail(f"The {what} must be a whole number.")
        return int(value)
    if value.denominator != 1:
        raise _fail(f"The {what} must be a whole number.")
    return value.numerator


def _round(value: Number, digits: Number | None = None) -> Number:
    if digits is None:
        return Fraction(round(value))
    places = _as_int(digits, "number of decimal places")
    if abs(places) > 100:
        raise _fail("I can round to at most 100 decimal places.")
    if isinstance(value, float):
        return round(value, places)
    return Fraction(round(value, places))


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(exponent, Fraction) and exponent.denominator == 1:
        exp = exponent.numerator
        if abs(exp) > MAX_EXPONENT:
            raise _fail(f"The exponent must be between -{MAX_EXPONENT} and {MAX_EXPONENT}.")
        if isinstance(base, Fraction):
            if base == 0 and exp < 0:
                raise _fail("I can't divide by zero.")
            bits = max(base.numerator.bit_length(), base.denominator.bit_length())
            if bits * abs(exp) > MAX_BITS + abs(exp):
                raise _fail("That number is too big for me to work out.")
            return base**exp
        return math.pow(base, exp)
    exp_f = float(exponent)
    if abs(exp_f) > MAX_EXPONENT:
        raise _fail(f"The exponent must be between -{MAX_EXPONENT} and {MAX_EXPONENT}.")
    if base < 0:
        raise _fail("I can't raise a negative number to a fractional power.")
    if base == 0 and exp_f < 0:
        raise _fail("I can't divide by zero.")
    if isinstance(base, Fraction) and isinstance(exponent, Fraction):
        # A perfect root stays exact: 8 ** (1/3) == 2, 4 ** 1.5 == 8.
        root = _int_root(base, exponent.denominator)
        if root is not None:
            return _power(root, Fraction(exponent.numerator))
    return math.pow(float(base), exp_f)


def _int_root(value: Fraction, n: int) -> Fraction | None:
    if n > 64 or value < 0:
        return None
    parts = []
    for part in (value.numerator, value.denominator):
        guess = round(part ** (1.0 / n)) if part.bit_length() < 1000 else None
        if guess is None:
            return None
        hit = next((g for g in (guess - 1, guess, guess + 1) if g >= 0 and g**n == part), None)
        if hit is None:
            return None
        parts.append(hit)
    return Fraction(parts[0], parts[1])


def _binop(op: ast.operator, left: Number, right: Number) -> Number:
    if isinstance(op, ast.Add):
        return left + right
    if isinstance(op, ast.Sub):
        return left - right
    if isinstance(op, ast.Mult):
        return left * right
    if isinstance(op, ast.Pow):
        return _power(left, right)
    if right == 0:
        raise _fail("I can't divide by zero.")
    if isinstance(op, ast.Div):
        return left / right
    if isinstance(op, ast.FloorDiv):
        quotient = left // right
        return Fraction(quotient) if isinstance(quotient, int) else quotient
    if isinstance(op, ast.Mod):
        return left % right
    raise _fail(f"I can't do that operation. {_HINT}")


_CALLS: Final[dict[str, tuple[int, int]]] = {
    "sqrt": (1, 1), "abs": (1, 1), "round": (1, 2), "floor": (1, 1), "ceil": (1, 1),
}  # fmt: skip


def _call(name: str, args: list[Number]) -> Number:
    low, high = _CALLS[name]
    if not low <= len(args) <= high:
        raise _fail(f"{name} takes {low} number{'s' if low > 1 else ''}. {_HINT}")
    x = args[0]
    if name == "sqrt":
        return _sqrt(x)
    if name == "abs":
        return -x if x < 0 else x
    if name == "round":
        return _round(x, args[1] if len(args) > 1 else None)
    pick: Callable[[Number], int] = math.floor if name == "floor" else math.ceil
    return Fraction(pick(x))


def _walk(node: ast.AST, depth: int = 0) -> Number:
    if depth > MAX_DEPTH:
        raise _fail("That calculation is nested too deeply. Say it in smaller steps.")
    if isinstance(node, ast.Expression):
        return _walk(node.body, depth + 1)
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(f"I can only calculate with numbers. {_HINT}")
        # repr() of a float literal is its shortest spelling: Fraction("0.1") == 1/10.
        return _check(Fraction(value) if isinstance(value, int) else Fraction(repr(value)))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _walk(node.operand, depth + 1)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left = _walk(node.left, depth + 1)
        right = _walk(node.right, depth + 1)
        return _check(_binop(node.op, left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _CALLS and not node.keywords:
        args = [_walk(a, depth + 1) for a in node.args]
        return _check(_call(node.func.id, args))
    raise _fail(f"I can only do arithmetic. {_HINT}")


def evaluate(expression: str) -> Number:
    """Work out a spoken or written arithmetic expression exactly.

    Args:
        expression: E.g. "what is 17 times 23?", "square root of 16", "15% of 80",
            "(2 + 3) ** 2", "one point five plus a hundred and five".

    Returns:
        A ``Fraction`` when the result is exact (0.1 + 0.2 -> 3/10), else a finite ``float``.

    Raises:
        AgentError: ``calc_invalid`` for anything that is not a calculation it can do
            (unknown words, division by zero, a too large exponent or result, a too long
            or too deeply nested expression); the message says what to say instead.
    """
    if not isinstance(expression, str):
        raise _fail(f"I didn't get a calculation. {_HINT}")
    if len(expression) > MAX_EXPRESSION_CHARS * 4:
        raise _fail("That calculation is too long. Say a shorter one.")
    try:
        text = _spoken_to_symbols(expression)
    except Exception:  # The user-facing boundary: a slip is never a crash
        raise _fail(f"I couldn't read that calculation. {_HINT}") from None
    if not text:
        raise _fail(f"I didn't hear a calculation. {_HINT}")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise _fail("That calculation is too long. Say a shorter one.")
    leftover = [w for w in re.findall(r"[^\W\d_]+", text) if w not in _FUNCS]
    if leftover:
        raise _fail(f"I don't know how to calculate '{' '.join(leftover[:3])}'. {_HINT}")
    if re.search(r"[^\d\s+\-*/%().,a-z]", text):
        raise _fail(f"I can only do arithmetic with + - times divided by and powers. {_HINT}")
    try:
        tree = ast.parse(text, mode="eval")
        return _walk(tree)
    except AgentError:
        raise
    except ZeroDivisionError:
        raise _fail("I can't divide by zero.") from None
    except (OverflowError, MemoryError):
        raise _fail("That number is too big for me to work out.") from None
    except Exception:  # The user-facing boundary: a slip is never a crash
        raise _fail(f"I couldn't read that calculation. {_HINT}") from None


# --- speaking the result -----------------------------------------------------------------

_SAY_PREFIX: Final = re.compile(r"^\s*(?:what(?:'s| is)|how much is|calculate|compute)\s+",
                                re.IGNORECASE)
_WORD_HYPHEN: Final = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")
"""A hyphen inside a word ("forty-two", "twenty-one"): never an operator."""
_KEPT_HYPHEN: Final = "\u2010"
_SPOKEN_OPS: Final = ((r"\*\*|\^", " to the power of "), (r"\*|×", " times "),
                      (r"/|÷", " divided by "), (r"\+", " plus "),
                      (r"(?:^|(?<=\S))\s*-\s*", " minus "), (r"%", " percent"))


def say_expression(expression: str) -> str:
    """The user's expression as it is read back before its result ("17 * 23" -> "17 times 23").

    Symbols become words, and a verb becomes its operator ("multiply 36 by 7" -> "36 times
    7", ``core.tools.calc_verbs``); the user's own words stay as they were, hyphenated
    number words included ("nineteen times forty-two", never "forty minus two").
    """
    text = _SAY_PREFIX.sub("", expression.strip()).rstrip(" ?.=")
    text = verbs_as_operators(re.sub(r"\s+(?:for me|please)$", "", text, flags=re.I))
    text = re.sub(r"sqrt\s*\(([^()]*)\)", r"the square root of \1", text)
    text = _WORD_HYPHEN.sub(_KEPT_HYPHEN, text)
    for pattern, words in _SPOKEN_OPS:
        text = re.sub(pattern, words, text)
    return " ".join(text.replace(_KEPT_HYPHEN, "-").split())


_SCI_ABOVE: Final = Fraction(10**15)
_SCI_BELOW: Final = Fraction(1, 10**6)


def format_number(value: Fraction | float | int) -> str:
    """Write a result for speech and display.

    Integers as digits ("391"); other values as a decimal rounded to at most 6 places
    without trailing zeros ("0.333333", "2.5"); magnitudes of 10**15 and above, or below
    10**-6, in scientific form with 7 significant digits ("1.234568e+20", "1e-09").

    Args:
        value: A result of ``evaluate`` (or any int, float or Fraction).

    Returns:
        The text; "infinity" / "not a number" for a non-finite float.
    """
    if isinstance(value, float):
        if math.isnan(value):
            return "not a number"
        if math.isinf(value):
            return "infinity" if value > 0 else "minus infinity"
        exact = Fraction(repr(value))
    else:
        exact = Fraction(value)
    if exact == 0:
        return "0"
    magnitude = abs(exact)
    with localcontext() as ctx:
        ctx.prec = 60
        dec = Decimal(exact.numerator) / Decimal(exact.denominator)
        if magnitude >= _SCI_ABOVE or magnitude < _SCI_BELOW:
            mantissa, _, exponent = format(dec, ".6e").partition("e")
            if "." in mantissa:
                mantissa = mantissa.rstrip("0").rstrip(".")
            sign = "-" if exponent.startswith("-") else "+"
            return f"{mantissa}e{sign}{exponent.lstrip('+-').zfill(2)}"
        if exact.denominator == 1:
            return str(exact.numerator)
        text = format(dec.quantize(Decimal("0.000001")), "f")
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
