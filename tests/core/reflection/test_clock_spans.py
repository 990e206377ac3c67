"""The span between two clock times a question states, and how an answer is read (pure)."""

from __future__ import annotations

import pytest

from desktop_agent.core.reflection.checks import find_check
from desktop_agent.core.reflection.clock_spans import SpanCheck, clock_times, find_clock_span, said
from desktop_agent.core.reflection.verdict import Verdict


@pytest.mark.parametrize(("question", "minutes", "unit"), [
    ("How many minutes is it from 9:40 to 11:15?", 95, "minutes"),
    ("My train leaves at quarter to eight and arrives at ten past eleven. How many minutes "
     "is the trip?", 205, "minutes"),
    ("My shift runs from half past eight in the morning until five in the afternoon. How "
     "many hours is that?", 510, "hours"),
    ("It takes off at 10:20 in the morning and lands at 1:05 that afternoon. How long is "
     "the flight in minutes?", 165, "minutes"),
    ("How long is it from 9 pm to 1 am?", 240, ""),
    ("How long is the meeting if it starts at noon and ends at 2:30?", 150, ""),
    ("How many hours between eight o'clock and midnight?", 240, "hours"),
    ("How much time is there from 11:15 to 1:05?", 110, ""),  # no am/pm: 1:05 comes next
    ("How long from twenty five past six to 7:00?", 35, ""),
    # A time without am/pm takes the reading that makes the shortest span.
    ("The meeting starts at 1:30 and ends at 5 pm. How long is it?", 210, ""),
    ("How many hours from 7:30 until 11 pm?", 210, "hours"),
    ("How many minutes is it from midnight to 12:30?", 30, "minutes"),
    ("How many minutes from 12:05 am to 12:45?", 40, "minutes"),
    ("How many hours from half past midnight to 8 am?", 450, "hours"),
    ("How long from ten to midnight until a quarter past noon?", 745, ""),
    ("How many minutes is it from 14:00 to 16:30?", 150, "minutes"),
])
def test_two_clock_times_and_a_how_long_make_a_span(question: str, minutes: int,
                                                    unit: str) -> None:
    check = find_clock_span(question)
    assert check is not None and (check.minutes, check.unit) == (minutes, unit)
    assert find_check(question) == check  # before dates, units and arithmetic


@pytest.mark.parametrize("question", [
    "How long does it take to walk two to three miles?",  # a range, not a time
    "How many people are coming from 5 to 6?",  # bare numbers are no clock
    "I get up at 7 and leave at 8. How long do I have?",
    "What time is it 95 minutes after 9:40?",  # one time, no span asked
    "How many minutes until 5 pm?",  # one time: from now, which is not in the question
    "How long do five to ten minutes feel?",
    # Which is the start is not said, or said the other way round.
    "Dinner starts at 6 pm. How many hours do I have if I start cooking at 3 pm?",
    "My flight lands at 1:05 pm and it took off at 10:20 am. How long was the flight?",
    # More than the span: a break, a week, two days, time zones, a running time, a race.
    "I work from 9 am to 5 pm with a 30 minute lunch. How many hours do I actually work?",
    "The store opens at 9 am and closes at 9 pm. How many hours is it open per week?",
    "We left at 9 am Monday and got back at 5 pm Tuesday. How long were we gone?",
    "The plane leaves New York at 6 pm and lands in London at 6 am local time. How long is "
    "the flight?",
    "The movie starts at 7:30 pm and runs 2 hours 10 minutes. How long do I have after it "
    "ends until 11 pm?",
    "How long before 3:30 pm should I leave to be there by 3 pm?",
    "I ran the marathon in 4:10 and my sister ran it in 3:45. How many minutes faster was "
    "she?",
    "The song starts at 0:45 and ends at 3:20 in the video. How long is it?",
    # A range is not a time: 'ten to twelve customers', '9 to 10'.
    "We open at 7 am and serve ten to twelve customers an hour. How long until noon?",
    "I have class from 9 to 10 and then lunch at 12:30. How long is the gap?",
])
def test_other_questions_have_no_span(question: str) -> None:
    assert find_clock_span(question) is None


def test_spoken_times_and_parts_of_the_day() -> None:
    spoken = [said(t.minutes) for t in clock_times(
        "quarter to eight, ten past eleven, half past 3, noon, 7 at night, two at night, "
        "twelve at night, 5 p.m., 6 in the evening")]
    assert spoken == ["7:45", "11:10", "3:30", "12:00", "7:00", "2:00", "12:00", "5:00", "6:00"]
    minutes = [t.minutes for t in clock_times("7 at night, two at night, twelve at night")]
    assert minutes == [19 * 60, 2 * 60, 0]


@pytest.mark.parametrize(("answer", "verdict"), [
    ("That's 95 minutes.", Verdict.GOOD),
    ("From 9:40 to 11:15 is 1 hour and 35 minutes.", Verdict.GOOD),  # the times restated
    ("It takes one hour and thirty-five minutes.", Verdict.GOOD),
    ("The difference is 1:35.", Verdict.GOOD),
    ("It is 35 minutes.", Verdict.REPAIR),  # 11:15 - 9:40 digit by digit
    ("It takes an hour and a half.", Verdict.REPAIR),
    ("From 9:40 to 11:15.", Verdict.REFINE),  # no duration said yet
    ("1 hour 35.", Verdict.GOOD),
    ("One hour thirty-five.", Verdict.GOOD),
    ("1 hr 35 min", Verdict.GOOD),
    ("1h35", Verdict.GOOD),
    ("About 1.58 hrs.", Verdict.GOOD),  # as rounded as it was said
    ("It's 95 minutes, or about 1.6 hours.", Verdict.GOOD),
    ("About 1.5 hours.", Verdict.REPAIR),
    ("It's an hour and 20 minutes.", Verdict.REPAIR),
    ("95 minutes, arriving at 11:15.", Verdict.GOOD),  # a time restated is no duration
])
def test_an_answer_is_read_as_a_duration_in_any_unit(answer: str, verdict: Verdict) -> None:
    check = find_clock_span("How many minutes is it from 9:40 to 11:15?")
    assert check is not None and check.judge(answer).verdict is verdict


def test_a_repair_says_the_span_in_the_questions_unit_and_flags_the_wrong_number() -> None:
    check = find_clock_span("My shift runs from half past eight in the morning until five in "
                            "the afternoon. How many hours is that?")
    assert isinstance(check, SpanCheck)
    got = check.judge("The shift lasts 7 hours.")
    assert got.verdict is Verdict.REPAIR and got.flagged_word == 3
    assert got.correction == "from 8:30 to 5:00 is 8.5 hours"
    assert got.guidance == "7 hours is wrong: from 8:30 to 5:00 is 8.5 hours."
    assert check.judge("Eight and a half hours.").verdict is Verdict.GOOD
    assert check.judge("It's 8 hours and 30 minutes.").verdict is Verdict.GOOD
    plain = find_clock_span("How long is it from 9 pm to 1 am?")
    assert plain is not None and plain.statement == "from 9:00 to 1:00 is 4 hours"
    assert plain.judge("It is 3 hours and 20 minutes.").guidance == (
        "3 hours and 20 minutes is wrong: from 9:00 to 1:00 is 4 hours.")
    # A bare number: in the question's unit, or no reading at all when it named none.
    assert plain.judge("Four.").verdict is Verdict.GOOD
    assert plain.judge("Five.").verdict is Verdict.GOOD
    hours = find_clock_span("How many hours from 9 am to 6 pm?")
    assert hours is not None and hours.judge("Nine.").verdict is Verdict.GOOD
    assert hours.judge("Eight.").verdict is Verdict.REPAIR
    # 'an hour' read as '1 hour' cannot be located in the words said: no word is flagged.
    assert check.judge("About an hour and a half.").flagged_word is None
    # Restated times of another form are no durations either.
    trip = find_clock_span("My train leaves at quarter to eight and arrives at ten past "
                           "eleven. How many minutes is the trip?")
    assert trip is not None and trip.judge("It's 205 minutes, arriving at 11:10.").verdict \
        is Verdict.GOOD
    late = find_clock_span("How many minutes is it from 14:00 to 16:30?")
    assert late is not None and late.judge("150 minutes, from 2:00 to 4:30.").verdict \
        is Verdict.GOOD


@pytest.mark.parametrize(("question", "minutes"), [
    ("How many minutes are there from ten forty-five in the morning to one twenty in the "
     "afternoon?", 155),
    ("I fell asleep at eleven thirty last night and woke up at seven fifteen this morning. "
     "How many minutes did I sleep?", 465),
    ("how long is it from nine oh five to ten fifteen?", 70),
])
def test_times_said_as_hour_and_minutes(question: str, minutes: int) -> None:
    check = find_clock_span(question)
    assert check is not None and check.minutes == minutes


def test_a_spoken_number_pair_that_is_no_time_is_no_span() -> None:
    assert find_clock_span("how many minutes from two twenty dollar bills") is None
