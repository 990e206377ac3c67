"""Unit conversion: spoken unit names, exact factors, temperature offsets, errors."""

from __future__ import annotations

import math

import pytest

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.units import UNITS, convert, parse_unit, unit_name


@pytest.mark.parametrize(("text", "symbol"), [
    ("km", "km"), ("kilometers", "km"), ("kilometres", "km"), ("Kilometer", "km"),
    ("miles", "mi"), ("mile", "mi"), ("feet", "ft"), ("foot", "ft"), ("inches", "in"),
    ("inch", "in"), ("yards", "yd"), ("millimetres", "mm"), ("centimeters", "cm"),
    ("meters", "m"), ("metres", "m"), ("nautical miles", "nmi"),
    ("pounds", "lb"), ("lbs", "lb"), ("ounces", "oz"), ("kilos", "kg"), ("grams", "g"),
    ("milligrams", "mg"), ("stone", "st"), ("tonnes", "t"), ("metric tons", "t"),
    ("milliliters", "mL"), ("ml", "mL"), ("litres", "L"), ("liters", "L"), ("cups", "cup"),
    ("fluid ounces", "fl oz"), ("fl oz", "fl oz"), ("pints", "pt"), ("gallons", "gal"),
    ("US gallons", "gal"), ("teaspoons", "tsp"), ("tbsp", "tbsp"), ("tablespoons", "tbsp"),
    ("degrees celsius", "°C"), ("Celsius", "°C"), ("centigrade", "°C"), ("°C", "°C"),
    ("C", "°C"), ("fahrenheit", "°F"), ("degrees Fahrenheit", "°F"), ("°F", "°F"),
    ("kelvin", "K"), ("K", "K"),
    ("seconds", "s"), ("minutes", "min"), ("hours", "h"), ("days", "d"), ("weeks", "wk"),
    ("km/h", "km/h"), ("Km / H", "km/h"), ("kph", "km/h"), ("kilometers per hour", "km/h"),
    ("kilometres an hour", "km/h"), ("mph", "mph"), ("miles per hour", "mph"),
    ("miles an hour", "mph"), ("m/s", "m/s"), ("meters per second", "m/s"),
    ("metres per second", "m/s"), ("knots", "kn"),
    ("m2", "m2"), ("m²", "m2"), ("square meters", "m2"), ("square metres", "m2"),
    ("sq ft", "ft2"), ("square feet", "ft2"), ("ft²", "ft2"), ("km2", "km2"),
    ("square kilometres", "km2"), ("sq miles", "mi2"), ("yards squared", "yd2"),
    ("acres", "acre"), ("hectares", "ha"),
    ("bytes", "B"), ("kilobytes", "KB"), ("MB", "MB"), ("megabytes", "MB"), ("gigs", "GB"),
    ("GB", "GB"), ("terabytes", "TB"), ("KiB", "KiB"), ("mebibytes", "MiB"), ("GiB", "GiB"),
    ("in kilometers", "km"), ("to miles", "mi"), ("into pounds?", "lb"), ("  feet  ", "ft"),
    ("ｋｍ", "km"),
])
def test_parse_unit(text: str, symbol: str) -> None:
    assert parse_unit(text) == symbol


def test_every_symbol_and_name_resolves_to_itself() -> None:
    for symbol, unit in UNITS.items():
        assert parse_unit(symbol) == symbol
        assert parse_unit(unit.name) == symbol, unit.name
        assert unit_name(symbol) == unit.name


@pytest.mark.parametrize(("value", "source", "target", "expected"), [
    (1, "mile", "kilometers", 1.609344),
    (5, "km", "miles", 3.1068559611866697),
    (12, "inches", "feet", 1.0),
    (3, "feet", "yards", 1.0),
    (1, "m", "cm", 100.0),
    (2.5, "km", "m", 2500.0),
    (1, "kg", "pounds", 2.2046226218487757),
    (16, "ounces", "pounds", 1.0),
    (14, "pounds", "stone", 1.0),
    (1, "tonne", "kg", 1000.0),
    (1000, "mg", "g", 1.0),
    (1, "gallon", "liters", 3.785411784),
    (2, "pints", "cups", 4.0),
    (1, "cup", "tablespoons", 16.0),
    (1, "tablespoon", "teaspoons", 3.0),
    (1, "cup", "fl oz", 8.0),
    (1, "L", "mL", 1000.0),
    (100, "degrees celsius", "fahrenheit", 212.0),
    (212, "F", "C", 100.0),
    (32, "°F", "°C", 0.0),
    (-40, "C", "F", -40.0),
    (0, "K", "C", -273.15),
    (0, "C", "kelvin", 273.15),
    (98.6, "F", "C", 37.0),
    (1, "week", "hours", 168.0),
    (90, "minutes", "hours", 1.5),
    (1, "day", "seconds", 86400.0),
    (60, "mph", "km/h", 96.56064),
    (10, "m/s", "km/h", 36.0),
    (1, "knot", "km/h", 1.852),
    (1, "acre", "m2", 4046.8564224),
    (1, "hectare", "m2", 10000.0),
    (1, "km2", "hectares", 100.0),
    (1, "m2", "sq ft", 10.763910416709722),
    (1, "GB", "MB", 1000.0),
    (1, "GiB", "MiB", 1024.0),
    (1, "GiB", "bytes", 1073741824.0),
    (1, "KB", "bytes", 1000.0),
    (8, "bits", "bytes", 1.0),
    (0, "km", "miles", 0.0),
    (-3, "m", "cm", -300.0),
    (5, "km", "km", 5.0),
])
def test_convert(value: float, source: str, target: str, expected: float) -> None:
    assert convert(value, source, target) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_exact_factors_give_exact_round_numbers() -> None:
    assert convert(12, "in", "ft") == 1.0
    assert convert(100, "C", "F") == 212.0
    assert convert(1760, "yd", "mi") == 1.0


@pytest.mark.parametrize("text", ["furlongs", "parsecs", "bananas", "tons of fun", "x" * 10_000,
                                  "__import__('os')", "🙂", "\x00", "squared", "square inches"])
def test_unknown_units(text: str) -> None:
    with pytest.raises(AgentError) as info:
        parse_unit(text)
    assert info.value.code == "unit_unknown"
    assert info.value.message.startswith("I don")


def test_unknown_unit_message_names_it() -> None:
    with pytest.raises(AgentError) as info:
        convert(3, "furlongs", "meters")
    assert info.value.message == "I don't know the unit 'furlongs'."


@pytest.mark.parametrize("text", ["", "   ", None, 5])
def test_missing_unit(text: object) -> None:
    with pytest.raises(AgentError) as info:
        parse_unit(text)  # type: ignore[arg-type]
    assert info.value.code == "unit_unknown"


@pytest.mark.parametrize(("source", "target"), [
    ("kg", "m"), ("C", "km"), ("mph", "hours"), ("acres", "liters"), ("GB", "seconds"),
    ("feet", "square feet"),
])
def test_mismatched_units(source: str, target: str) -> None:
    with pytest.raises(AgentError) as info:
        convert(1, source, target)
    assert info.value.code == "unit_mismatch"


def test_mismatch_message_uses_spoken_names() -> None:
    with pytest.raises(AgentError) as info:
        convert(1, "kilograms", "meters")
    assert info.value.message == "I can't convert kilograms to meters."


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, "5", None, True])
def test_bad_values(value: object) -> None:
    with pytest.raises(AgentError) as info:
        convert(value, "m", "km")  # type: ignore[arg-type]
    assert info.value.code == "unit_invalid"


def test_below_absolute_zero() -> None:
    with pytest.raises(AgentError) as info:
        convert(-300, "C", "F")
    assert info.value.code == "unit_invalid"
    with pytest.raises(AgentError):
        convert(-1, "K", "C")


def test_overflow_is_an_agent_error() -> None:
    with pytest.raises(AgentError) as info:
        convert(1e308, "km", "mm")
    assert info.value.code == "unit_invalid"
