"""Unit conversion for spoken requests: "5 miles in kilometers", "100 degrees fahrenheit".

Units are named the way people say them ("kilometres", "miles per hour", "degrees
celsius", "pounds", "feet") and are resolved to a canonical symbol ("km", "mph", "°C",
"lb", "ft"). Linear units convert exactly through a base unit with ``Fraction`` factors,
so 12 in is exactly 1 ft; temperature converts with its offset.

US customary volumes (cup, pint, quart, gallon, fluid ounce) and decimal data units
(KB = 1000 B) unless the binary names are used (KiB = 1024 B).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from desktop_agent.core.errors import AgentError


@dataclass(frozen=True, slots=True)
class Unit:
    """One unit: what it measures and how big it is."""

    symbol: str
    """Canonical symbol, e.g. "km"."""
    dimension: str
    """What it measures: "length", "mass", "volume", "temperature", "time", "speed",
    "area" or "data"."""
    factor: Fraction
    """Size in the dimension's base unit (m, kg, L, s, m/s, m², B); 1 for temperature."""
    name: str
    """Spoken plural name, e.g. "kilometers"."""


def _u(symbol: str, dimension: str, factor: str | int | Fraction, name: str) -> Unit:
    return Unit(symbol, dimension, Fraction(factor), name)


_MILE: Final = Fraction("1609.344")
_FOOT: Final = Fraction("0.3048")
_GALLON: Final = Fraction("3.785411784")

UNITS: Final[dict[str, Unit]] = {u.symbol: u for u in (
    _u("mm", "length", "0.001", "millimeters"),
    _u("cm", "length", "0.01", "centimeters"),
    _u("m", "length", 1, "meters"),
    _u("km", "length", 1000, "kilometers"),
    _u("in", "length", "0.0254", "inches"),
    _u("ft", "length", _FOOT, "feet"),
    _u("yd", "length", "0.9144", "yards"),
    _u("mi", "length", _MILE, "miles"),
    _u("nmi", "length", 1852, "nautical miles"),
    _u("mg", "mass", "0.000001", "milligrams"),
    _u("g", "mass", "0.001", "grams"),
    _u("kg", "mass", 1, "kilograms"),
    _u("t", "mass", 1000, "tonnes"),
    _u("oz", "mass", "0.028349523125", "ounces"),
    _u("lb", "mass", "0.45359237", "pounds"),
    _u("st", "mass", "6.35029318", "stone"),
    _u("mL", "volume", "0.001", "milliliters"),
    _u("L", "volume", 1, "liters"),
    _u("tsp", "volume", _GALLON / 768, "teaspoons"),
    _u("tbsp", "volume", _GALLON / 256, "tablespoons"),
    _u("fl oz", "volume", _GALLON / 128, "fluid ounces"),
    _u("cup", "volume", _GALLON / 16, "cups"),
    _u("pt", "volume", _GALLON / 8, "pints"),
    _u("qt", "volume", _GALLON / 4, "quarts"),
    _u("gal", "volume", _GALLON, "gallons"),
    _u("°C", "temperature", 1, "degrees Celsius"),
    _u("°F", "temperature", 1, "degrees Fahrenheit"),
    _u("K", "temperature", 1, "kelvin"),
    _u("s", "time", 1, "seconds"),
    _u("min", "time", 60, "minutes"),
    _u("h", "time", 3600, "hours"),
    _u("d", "time", 86400, "days"),
    _u("wk", "time", 604800, "weeks"),
    _u("fortnight", "time", 1209600, "fortnights"),
    _u("m/s", "speed", 1, "meters per second"),
    _u("km/h", "speed", Fraction(1000, 3600), "kilometers per hour"),
    _u("mph", "speed", _MILE / 3600, "miles per hour"),
    _u("kn", "speed", Fraction(1852, 3600), "knots"),
    _u("ft/s", "speed", _FOOT, "feet per second"),
    _u("cm2", "area", "0.0001", "square centimeters"),
    _u("m2", "area", 1, "square meters"),
    _u("km2", "area", 1000**2, "square kilometers"),
    _u("ft2", "area", _FOOT**2, "square feet"),
    _u("yd2", "area", Fraction("0.9144") ** 2, "square yards"),
    _u("mi2", "area", _MILE**2, "square miles"),
    _u("acre", "area", "4046.8564224", "acres"),
    _u("ha", "area", 10000, "hectares"),
    _u("bit", "data", Fraction(1, 8), "bits"),
    _u("B", "data", 1, "bytes"),
    _u("KB", "data", 10**3, "kilobytes"),
    _u("MB", "data", 10**6, "megabytes"),
    _u("GB", "data", 10**9, "gigabytes"),
    _u("TB", "data", 10**12, "terabytes"),
    _u("KiB", "data", 2**10, "kibibytes"),
    _u("MiB", "data", 2**20, "mebibytes"),
    _u("GiB", "data", 2**30, "gibibytes"),
    _u("TiB", "data", 2**40, "tebibytes"),
)}  # fmt: skip
"""Every unit by canonical symbol."""

_ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "mm": ("millimeter", "millimetre"),
    "cm": ("centimeter", "centimetre", "centi meter", "cms"),
    "m": ("meter", "metre", "mtr", "mtrs"),
    "km": ("kilometer", "kilometre", "kilo meter", "kms", "klick", "klicks"),
    "in": ("inch", "inches", '"', "ins"),
    "ft": ("foot", "feet", "'", "fts"),
    "yd": ("yard", "yds"),
    "mi": ("mile",),
    "nmi": ("nautical mile", "nm"),
    "mg": ("milligram", "milligramme", "mgs"),
    "g": ("gram", "gramme", "gm", "gms"),
    "kg": ("kilogram", "kilogramme", "kilo", "kgs", "kilo gram"),
    "t": ("tonne", "metric ton", "metric tonne"),
    "oz": ("ounce", "ozs"),
    "lb": ("pound", "lbs", "pound weight"),
    "st": ("stone", "stones"),
    "mL": ("milliliter", "millilitre", "mls", "cc", "cubic centimeter", "cubic centimetre"),
    "L": ("liter", "litre", "ltr", "ltrs", "lt"),
    "tsp": ("teaspoon", "teaspoonful", "tsps"),
    "tbsp": ("tablespoon", "tablespoonful", "tbsps", "tbs", "tbl"),
    "fl oz": ("fluid ounce", "floz", "fl. oz", "fl.oz", "fl oz."),
    "cup": ("cups",),
    "pt": ("pint", "pts"),
    "qt": ("quart", "qts"),
    "gal": ("gallon", "gals", "us gallon"),
    "°C": ("c", "celsius", "centigrade", "degree celsius", "degree c", "deg c", "degc"),
    "°F": ("f", "fahrenheit", "farenheit", "fahrenheight", "degree fahrenheit", "degree f",
           "deg f", "degf"),
    "K": ("kelvin", "kelvins", "degree kelvin"),
    "s": ("second", "sec", "secs"),
    "min": ("minute", "mins"),
    "h": ("hour", "hr", "hrs"),
    "d": ("day",),
    "wk": ("week", "wks"),
    "fortnight": ("fortnights",),
    "m/s": ("meter per second", "metre per second", "meters per second", "metres per second",
            "mps", "m per s"),
    "km/h": ("kilometer per hour", "kilometre per hour", "kilometers per hour",
             "kilometres per hour", "kph", "kmh", "kmph", "km per hour", "km an hour",
             "kilometers an hour", "kilometres an hour", "kilometer an hour"),
    "mph": ("mile per hour", "miles per hour", "miles an hour", "mile an hour", "mi/h"),
    "kn": ("knot", "knots", "kt", "kts", "nautical mile per hour", "nautical miles per hour"),
    "ft/s": ("foot per second", "feet per second", "fps"),
    "cm2": ("square centimeter", "square centimetre", "sq cm"),
    "m2": ("square meter", "square metre", "sq m", "sqm", "meter squared", "metre squared",
           "meters squared", "metres squared"),
    "km2": ("square kilometer", "square kilometre", "sq km", "kilometers squared",
            "kilometres squared"),
    "ft2": ("square foot", "square feet", "sq ft", "sqft", "feet squared"),
    "yd2": ("square yard", "sq yd"),
    "mi2": ("square mile", "sq mi"),
    "acre": ("acres", "ac"),
    "ha": ("hectare", "hectares"),
    "bit": ("bits",),
    "B": ("byte", "b"),
    "KB": ("kilobyte", "kb", "k byte"),
    "MB": ("megabyte", "mb", "meg", "megs", "mega byte"),
    "GB": ("gigabyte", "gb", "gig", "gigs", "giga byte"),
    "TB": ("terabyte", "tb", "tera byte"),
    "KiB": ("kibibyte", "kib"),
    "MiB": ("mebibyte", "mib"),
    "GiB": ("gibibyte", "gib"),
    "TiB": ("tebibyte", "tib"),
}
"""Lower-case spoken names and spellings for each symbol (singular; plurals are derived)."""


def _build_lookup() -> dict[str, str]:
    table: dict[str, str] = {}
    for symbol, unit in UNITS.items():
        table[symbol.lower()] = symbol
        table[unit.name.lower()] = symbol
    for symbol, names in _ALIASES.items():
        for name in names:
            table[name] = symbol
    return table


_LOOKUP: Final = _build_lookup()
MAX_UNIT_CHARS: Final = 60
"""Longer unit text is refused without looking."""


def _singulars(word: str) -> list[str]:
    """``word`` and the singular forms it might have ("inches" -> "inch", "miles" -> "mile")."""
    out = [word]
    for ending, repl in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(ending) and len(word) > len(ending) + 1:
            out.append(word[: -len(ending)] + repl)
    return out


def _candidates(key: str) -> list[str]:
    """Spellings of ``key`` to try: as is, then with its first and last words singular."""
    words = key.split(" ")
    if len(words) == 1:
        return _singulars(key)
    middle = " ".join(words[1:-1])
    out = []
    for first in _singulars(words[0]):
        for last in _singulars(words[-1]):
            out.append(" ".join(w for w in (first, middle, last) if w))
    return out


def _clean(text: str) -> str:
    key = unicodedata.normalize("NFKC", text).lower().strip()
    key = key.replace("²", "2").replace("^2", "2").replace("³", "3")
    key = re.sub(r"[?!,;]+$", "", key).strip()
    key = re.sub(r"^(?:in|into|to|as|the|a|an)\s+", "", key)
    key = re.sub(r"^(?:the|a|an)\s+", "", key)
    key = re.sub(r"\s*/\s*", "/", key)
    key = re.sub(r"\s+", " ", key)
    key = re.sub(r"^(?:degrees?|deg)\s+(?=\S)", "", key)
    key = key.replace("°", "").strip()
    key = re.sub(r"\b(\w+?)s? (?:per|an|a) (hour|second)s?\b", r"\1 per \2", key)
    key = re.sub(r"^(?:us|u\.s\.|american)\s+", "", key)
    return key


def parse_unit(text: str) -> str:
    """Resolve a spoken or written unit to its canonical symbol.

    Args:
        text: E.g. "kilometres", "miles per hour", "degrees celsius", "°F", "lbs", "feet",
            "square meters", "GiB". Case, plurals, British spellings and a leading
            "in"/"to"/"degrees" are forgiven.

    Returns:
        A key of ``UNITS``, e.g. "km", "mph", "°C", "lb", "ft", "m2", "GiB".

    Raises:
        AgentError: ``unit_unknown`` when the unit is not one it knows.
    """
    if not isinstance(text, str):
        raise AgentError("unit_unknown", "I didn't hear a unit.")
    raw = text.strip()
    if not raw:
        raise AgentError("unit_unknown", "I didn't hear a unit. Say one like 'kilometers'.")
    if len(raw) > MAX_UNIT_CHARS:
        raise AgentError("unit_unknown", "I don't know that unit. Say one like 'kilometers'.")
    if raw in UNITS:
        return raw
    # Case carries meaning only for data units written as symbols ("Mb" is read as MB).
    key = _clean(raw)
    for candidate in _candidates(key):
        if candidate in _LOOKUP:
            return _LOOKUP[candidate]
    # "square <length>" / "sq <length>" / "<length> squared" -> the area unit.
    square = re.fullmatch(r"(?:square|sq\.?) (.+)|(.+) squared", key)
    if square is not None:
        length = square.group(1) or square.group(2)
        for candidate in _candidates(length):
            symbol = _LOOKUP.get(candidate, "")
            if UNITS.get(symbol + "2") is not None and UNITS[symbol].dimension == "length":
                return symbol + "2"
    shown = re.sub(r"[^\w °/'\".-]", "", raw)[:40].strip() or "that"
    raise AgentError("unit_unknown", f"I don't know the unit '{shown}'.")


def unit_name(symbol: str) -> str:
    """The spoken plural name of a canonical symbol ("km" -> "kilometers")."""
    unit = UNITS.get(symbol)
    return unit.name if unit is not None else symbol


_TO_CELSIUS: Final[dict[str, Callable[[Fraction], Fraction]]] = {
    "°C": lambda v: v,
    "°F": lambda v: (v - 32) * Fraction(5, 9),
    "K": lambda v: v - Fraction("273.15"),
}
_FROM_CELSIUS: Final[dict[str, Callable[[Fraction], Fraction]]] = {
    "°C": lambda c: c,
    "°F": lambda c: c * Fraction(9, 5) + 32,
    "K": lambda c: c + Fraction("273.15"),
}
_ABSOLUTE_ZERO_C: Final = Fraction("-273.15")


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Convert ``value`` from one unit to another of the same kind.

    Args:
        value: The amount, in ``from_unit``; a finite number.
        from_unit: Any name ``parse_unit`` accepts ("miles", "°F", "pounds").
        to_unit: Any name ``parse_unit`` accepts.

    Returns:
        The amount in ``to_unit`` (exact arithmetic, rounded once to ``float``).

    Raises:
        AgentError: ``unit_unknown`` for a unit it doesn't know, ``unit_mismatch`` when
            the two measure different things ("I can't convert kilograms to meters."),
            ``unit_invalid`` for a value that is not a finite number or a temperature
            below absolute zero.
    """
    source = UNITS[parse_unit(from_unit)]
    target = UNITS[parse_unit(to_unit)]
    if source.dimension != target.dimension:
        raise AgentError("unit_mismatch", f"I can't convert {source.name} to {target.name}.")
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        raise AgentError("unit_invalid", "I need a number to convert.")
    if isinstance(value, float) and not math.isfinite(value):
        raise AgentError("unit_invalid", "I need a finite number to convert.")
    try:
        amount = Fraction(value)
        if source.dimension == "temperature":
            celsius = _TO_CELSIUS[source.symbol](amount)
            if celsius < _ABSOLUTE_ZERO_C:
                raise AgentError("unit_invalid", "That's colder than absolute zero.")
            return float(_FROM_CELSIUS[target.symbol](celsius))
        return float(amount * source.factor / target.factor)
    except OverflowError:
        raise AgentError("unit_invalid", "That number is too big to convert.") from None
