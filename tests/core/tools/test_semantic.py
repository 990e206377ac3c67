"""Tools by meaning: the matcher on hand-made vectors whose answers are known, and its wiring."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from desktop_agent.core.ports import ChatMessage, ToolCall
from desktop_agent.core.tools.catalog import BUILTIN, NO_TOOL_EXAMPLES
from desktop_agent.core.tools.decision import (
    Offer,
    offer_tools,
    offered_tools,
    plan_decision,
    tools_by_meaning,
)
from desktop_agent.core.tools.semantic import (
    NO_TOOL,
    MeaningRouter,
    MeaningSettings,
    ToolMeanings,
    examples_digest,
    labelled_examples,
)
from desktop_agent.core.tools.tool_def import Risk, ToolDef

# Four directions: a timer request, a note request, chit-chat, and one between timer and note.
LABELS = ("set_timer", "set_timer", "add_note", "add_note", NO_TOOL, NO_TOOL)
VECTORS = (
    (1.0, 0.0, 0.0, 0.0),
    (0.8, 0.6, 0.0, 0.0),  # a timer example with a little of the note direction
    (0.0, 1.0, 0.0, 0.0),
    (0.0, 0.8, 0.0, 0.6),
    (0.0, 0.0, 1.0, 0.0),
    (0.0, 0.0, 0.6, 0.8),
)
SETTINGS = MeaningSettings(min_score=0.5, over_none=0.0, within=0.1, max_tools=2, neighbours=2)


@pytest.fixture()
def meanings() -> ToolMeanings:
    return ToolMeanings(LABELS, VECTORS, SETTINGS)


def test_a_tools_score_is_the_mean_of_its_two_nearest_examples(meanings: ToolMeanings) -> None:
    scores = meanings.scores((1.0, 0.0, 0.0, 0.0))
    assert scores["set_timer"] == pytest.approx((1.0 + 0.8) / 2)
    assert scores["add_note"] == pytest.approx((0.0 + 0.0) / 2)
    assert scores[NO_TOOL] == pytest.approx(0.0)
    one = ToolMeanings(LABELS, VECTORS, MeaningSettings(neighbours=1))
    assert one.scores((1.0, 0.0, 0.0, 0.0))["set_timer"] == pytest.approx(1.0)
    assert meanings.tools == ("set_timer", "add_note") and len(meanings) == 6


def test_the_nearest_tool_is_offered_when_near_enough(meanings: ToolMeanings) -> None:
    assert meanings.pick((1.0, 0.1, 0.0, 0.0)) == ("set_timer",)
    assert meanings.pick((0.0, 1.0, 0.0, 0.1)) == ("add_note",)


def test_nothing_is_offered_below_the_floor_or_nearer_to_no_tool(meanings: ToolMeanings) -> None:
    assert meanings.pick((0.0, 0.0, 1.0, 0.0)) == ()  # chit-chat
    assert meanings.pick((0.3, 0.3, 1.0, 1.0)) == ()  # weak everywhere
    # Near a timer example (0.6 mean) but nearer still to the no-tool ones (~0.74).
    leaning = (0.7, 0.0, 0.7, 0.4)
    assert meanings.scores(leaning)["set_timer"] > SETTINGS.min_score
    assert meanings.pick(leaning) == ()
    lenient = ToolMeanings(LABELS, VECTORS, MeaningSettings(min_score=0.5, over_none=-0.2))
    assert lenient.pick(leaning) == ("set_timer",)


def test_close_seconds_are_offered_too_best_first_and_at_most_max_tools() -> None:
    between = (0.55, 0.8, 0.0, 0.2)
    two = ToolMeanings(LABELS, VECTORS, SETTINGS)
    scores = two.scores(between)
    assert abs(scores["set_timer"] - scores["add_note"]) < SETTINGS.within
    first = max(("set_timer", "add_note"), key=scores.__getitem__)
    picked = two.pick(between)
    assert picked[0] == first and set(picked) == {"set_timer", "add_note"}
    one = ToolMeanings(LABELS, VECTORS, MeaningSettings(min_score=0.5, max_tools=1))
    assert one.pick(between) == (first,)
    strict = ToolMeanings(LABELS, VECTORS, MeaningSettings(min_score=0.5, within=0.0))
    assert strict.pick(between) == (first,)


def test_a_statement_needs_more_and_a_tool_whose_rule_reads_the_words_less() -> None:
    cfg = MeaningSettings(min_score=0.5, not_asked=0.1, when_read=0.3, over_none=0.0)
    m = ToolMeanings(LABELS, VECTORS, cfg)
    vector = (0.55, 0.0, 0.0, 0.8)  # set_timer 0.51, none 0.33
    assert 0.5 <= m.scores(vector)["set_timer"] < 0.6
    assert m.pick(vector) == ("set_timer",)
    assert m.pick(vector, asked=False) == ()  # "I love the smell of coffee" is not asked
    faint = (0.35, 0.0, 0.6, 0.75)  # set_timer 0.31, no tool 0.76
    assert m.pick(faint, read={"set_timer"}) == ()  # nearer to no tool: read or not
    between = (0.35, 0.0, 0.0, 0.9)  # set_timer 0.33, no tool 0.37
    lenient = ToolMeanings(LABELS, VECTORS, MeaningSettings(min_score=0.5, when_read=0.3,
                                                            over_none=-0.2))
    score = lenient.scores(between)["set_timer"]
    assert 0.3 <= score < 0.5
    assert lenient.pick(between) == ()
    assert lenient.pick(between, read={"set_timer"}) == ("set_timer",)  # two signals agree
    assert lenient.pick(between, read={"add_note"}) == ()


def test_a_tool_whose_rule_reads_the_words_ranks_first_when_it_is_close() -> None:
    # "nudge me in an hour to stretch": a little nearer the timer, read by the reminder's rule.
    m = ToolMeanings(LABELS, VECTORS, MeaningSettings(
        min_score=0.3, over_none=0.0, within=0.0, max_tools=1, read_bonus=0.1))
    scores = {"set_timer": 0.48, "add_note": 0.41, NO_TOOL: 0.2}
    assert m.choose(scores) == ("set_timer",)
    assert m.choose(scores, read={"add_note"}) == ("add_note",)  # 0.41 + 0.1 ranks first
    assert m.choose(scores, read={"add_note"}, asked=False) == ("set_timer",)  # not asked
    assert m.choose({**scores, "add_note": 0.30}, read={"add_note"}) == ("set_timer",)
    # The bonus ranks; it never lifts a tool over the floor or the no-tool examples.
    assert m.choose({"add_note": 0.25, NO_TOOL: 0.2}, read={"add_note"}) == ()


def test_only_allowed_tools_are_offered(meanings: ToolMeanings) -> None:
    assert meanings.pick((1.0, 0.1, 0.0, 0.0), allowed={"add_note"}) == ()
    assert meanings.pick((1.0, 0.1, 0.0, 0.0), allowed=()) == ()


def test_bad_vectors_are_refused() -> None:
    with pytest.raises(ValueError):
        ToolMeanings(LABELS, VECTORS[:-1])
    with pytest.raises(ValueError):
        ToolMeanings(("a", "b"), ((1.0, 0.0), (1.0, 0.0, 0.0)))


class FakeEmbedder:
    """Vectors by text from a table (zeros for any other text); counts its calls."""

    def __init__(self, table: dict[str, Sequence[float]], dimensions: int = 4) -> None:
        self.table = table
        self.calls: list[list[str]] = []
        self._dimensions = dimensions

    @property
    def model_id(self) -> str:
        return "fake"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [list(self.table.get(t, (0.0,) * self._dimensions)) for t in texts]


def _router(table: dict[str, Sequence[float]]) -> tuple[MeaningRouter, FakeEmbedder]:
    fake = FakeEmbedder(table)
    return MeaningRouter(fake, ToolMeanings(LABELS, VECTORS, SETTINGS)), fake


def test_the_router_embeds_the_request_and_offers_only_the_given_specs() -> None:
    router, fake = _router({"in ten minutes give me a shout": (1.0, 0.1, 0.0, 0.0)})
    specs = BUILTIN.specs
    assert [s.name for s in router.offer(" in ten minutes  give me a shout", specs)] == [
        "set_timer"]
    assert fake.calls == [["in ten minutes give me a shout"]]  # spaces collapsed
    assert router.last_scores["set_timer"] > 0.9
    no_timer = [s for s in specs if s.name != "set_timer"]
    assert router.offer("in ten minutes give me a shout", no_timer) == ()


def test_what_no_tool_answers_is_offered_none_however_near_a_tool() -> None:
    near = (1.0, 0.1, 0.0, 0.0)  # as near set_timer as the request above
    asked = "How does a microwave know when to stop? Like, what's the timer doing?"
    router, _ = _router({asked: near, "could you set one for me": near})
    assert router.offer(asked, BUILTIN.specs) == ()
    assert [s.name for s in router.offer("could you set one for me", BUILTIN.specs)] == [
        "set_timer"]


def test_long_or_empty_text_is_never_embedded() -> None:
    router, fake = _router({})
    assert router.offer("word " * 100, BUILTIN.specs) == ()
    assert router.offer("   ", BUILTIN.specs) == ()
    assert fake.calls == [] and router.last_scores == {}


def test_from_catalog_embeds_every_example_once_or_takes_vectors_given() -> None:
    fake = FakeEmbedder({})
    router = MeaningRouter.from_catalog(fake)
    labels, texts = labelled_examples()
    assert fake.calls == [list(texts)]
    assert len(router.meanings) == len(texts)
    again = FakeEmbedder({})
    MeaningRouter.from_catalog(again, vectors=[(1.0, 0.0, 0.0, 0.0)] * len(texts))
    assert again.calls == []


def test_every_builtin_tool_has_examples_and_no_example_is_in_two_places() -> None:
    labels, texts = labelled_examples()
    for tool in BUILTIN:
        assert 10 <= len(tool.examples) <= 30, tool.name
    assert labels.count(NO_TOOL) == len(NO_TOOL_EXAMPLES) >= 30
    folded = [" ".join(t.lower().split()) for t in texts]
    assert len(set(folded)) == len(folded)


def test_the_digest_follows_the_model_and_every_example() -> None:
    labels, texts = labelled_examples()
    key = examples_digest("m", labels, texts)
    assert key == examples_digest("m", labels, texts)
    assert key != examples_digest("other", labels, texts)
    assert key != examples_digest("m", labels, (*texts[:-1], texts[-1] + "!"))
    assert key != examples_digest("m", (*labels[:-1], "add_note"), texts)


def test_an_example_must_be_a_sentence() -> None:
    with pytest.raises(ValueError, match="example"):
        ToolDef("x", "X.", {}, Risk.READ, offered=lambda t: False, executor="builtin",
                examples=("fine", " "))


def test_tools_by_meaning_only_for_the_users_newest_message() -> None:
    router, _ = _router({"give me a shout in a minute": (1.0, 0.0, 0.0, 0.0)})
    user = ChatMessage("user", "give me a shout in a minute")
    assert [s.name for s in tools_by_meaning([user], BUILTIN.specs, router)] == ["set_timer"]
    assert tools_by_meaning([user], BUILTIN.specs, None) == ()
    assert tools_by_meaning([user, ChatMessage("tool", "Timer set.", name="set_timer")],
                            BUILTIN.specs, router) == ()
    assert tools_by_meaning([], BUILTIN.specs, router) == ()


def test_a_tool_whose_arguments_the_words_lack_is_not_offered_by_meaning() -> None:
    """Near a timer's examples but with no number or unit of time, a timer's call could
    only be dropped (its duration must be the user's words), after a decision run of one
    to four seconds; the same for a sum without a number."""
    router, _ = _router({"give me a tip for sleeping better": (1.0, 0.0, 0.0, 0.0),
                         "give me a sec": (1.0, 0.0, 0.0, 0.0)})
    tip = ChatMessage("user", "give me a tip for sleeping better")
    assert tools_by_meaning([tip], BUILTIN.specs, router) == ()
    sec = ChatMessage("user", "give me a sec")
    assert [s.name for s in tools_by_meaning([sec], BUILTIN.specs, router)] == ["set_timer"]
    assert BUILTIN["calculate"].by_meaning_needs is not None
    assert not BUILTIN["calculate"].by_meaning_needs("what's the sum of my worries")
    assert BUILTIN["calculate"].by_meaning_needs("what's a dozen times three")


def test_a_tool_found_by_meaning_is_never_called_alone_without_the_model() -> None:
    time = BUILTIN["get_current_time"].spec
    question = "what's the time difference with Tokyo"
    assert plan_decision(question, (time,)).call is not None  # a rule's offer: sure alone
    assert plan_decision(question, (time,), by_meaning=True).call is None  # the model decides
    # Arguments spelled out in the words still decide the call ("remember that ...")...
    note = BUILTIN["add_note"].spec
    plan = plan_decision("remember that the key is under the mat", (note,), by_meaning=True)
    assert plan.call == ToolCall("add_note", {"text": "the key is under the mat"}, "call_1")
    # ...but only for the nearest tool: a rule of another candidate does not decide it...
    search, delete = BUILTIN["search_notes"].spec, BUILTIN["delete_notes"].spec
    scrap = "can I lose my note about the meeting"  # search_notes' rule reads "note about X"
    assert plan_decision(scrap, (delete, search), by_meaning=True).call is None
    assert plan_decision(scrap, (search, delete), by_meaning=True).call == ToolCall(
        "search_notes", {"query": "meeting"}, "call_1")
    # ...and only for a request: a statement a rule happens to read goes to the model.
    holiday = "The 14th of July is a holiday in France."
    dow = BUILTIN["day_of_week"].spec
    assert plan_decision(holiday, (dow,)).call is not None  # a rule's offer, as before
    assert plan_decision(holiday, (dow,), by_meaning=True).call is None
    # A request in the last clause, after some context, is a request (the 0.5B said "none"
    # to these); one that waits, reports someone's words or is taken back is not.
    app, volume = BUILTIN["open_app"].spec, BUILTIN["set_volume"].spec
    assert plan_decision("I need to write an email, open my mail program", (app,),
                         by_meaning=True).call == ToolCall("open_app", {"app": "mail"}, "call_1")
    assert plan_decision("I can barely hear anything, turn the volume up", (volume,),
                         by_meaning=True).call == ToolCall("set_volume", {"setting": "up"},
                                                           "call_1")
    for waits in ("if it freezes again, open the terminal", "the note says, open the terminal",
                  "open the terminal, actually no, don't", "he yelled, open the terminal",
                  "in my dream, open the terminal", "as soon as it rings, open the terminal"):
        assert plan_decision(waits, (app,), by_meaning=True).call is None, waits


def test_a_tool_whose_rule_reads_the_words_is_matched_more_leniently() -> None:
    # "remember that ..." is read by add_note's rule: a faint meaning match is enough.
    router, _ = _router({"remember that the key is under the mat": (0.3, 0.9, 0.0, 0.9)})
    user = [ChatMessage("user", "remember that the key is under the mat")]
    lenient = MeaningSettings(min_score=0.9, when_read=0.3, over_none=0.0, neighbours=2)
    router.meanings = ToolMeanings(LABELS, VECTORS, lenient)
    assert [s.name for s in tools_by_meaning(user, BUILTIN.specs, router)] == ["add_note"]
    other = [ChatMessage("user", "the key is under the mat, I think")]
    router.embedder = FakeEmbedder({"the key is under the mat, I think": (0.3, 0.9, 0.0, 0.9)})
    assert tools_by_meaning(other, BUILTIN.specs, router) == ()  # no rule reads it


def _time_router(table: dict[str, Sequence[float]]) -> MeaningRouter:
    labels = ("get_current_time", "get_current_time", "set_timer", NO_TOOL, NO_TOOL)
    vectors = ((1.0, 0.0, 0.0), (0.9, 0.1, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0),
               (0.3, 0.0, 0.9))
    return MeaningRouter(FakeEmbedder(table, 3), ToolMeanings(labels, vectors, MeaningSettings(
        min_score=0.5, over_none=0.0, veto_margin=0.0)))


def test_offer_tools_rules_first_then_meaning_and_without_meanings_the_rules_alone() -> None:
    shop = "what's the time difference with Tokyo"
    router = _time_router({shop: (0.4, 0.0, 0.9), "what time is it": (1.0, 0.0, 0.1),
                           "how long have I got, roughly": (0.95, 0.1, 0.2),
                           "set a timer for 5 minutes": (0.0, 0.0, 1.0)})
    ask = [ChatMessage("user", shop)]
    assert offer_tools(ask, BUILTIN.specs) == Offer(offered_tools(ask, BUILTIN.specs))
    assert [s.name for s in offer_tools(ask, BUILTIN.specs).tools] == ["get_current_time"]
    # The rule offers get_current_time, but the question is nearer to no tool: dropped.
    assert offer_tools(ask, BUILTIN.specs, router) == Offer(())
    # A real time request keeps it; so does a tool with arguments, however far.
    ok = [ChatMessage("user", "what time is it")]
    assert offer_tools(ok, BUILTIN.specs, router).tools == (BUILTIN["get_current_time"].spec,)
    timer = [ChatMessage("user", "set a timer for 5 minutes")]
    assert offer_tools(timer, BUILTIN.specs, router).tools == (BUILTIN["set_timer"].spec,)
    # No rule reads it: found by meaning.
    rough = [ChatMessage("user", "how long have I got, roughly")]
    assert offered_tools(rough, BUILTIN.specs) == ()
    assert offer_tools(rough, BUILTIN.specs, router) == Offer(
        (BUILTIN["get_current_time"].spec,), by_meaning=True)



def test_the_veto_compares_the_request_not_the_context_before_it() -> None:
    context = "I've got a train at ten past seven and no idea how long I've got"
    said = f"{context}, what time is it now?"
    router = _time_router({said: (0.3, 0.0, 0.95), "what time is it now?": (1.0, 0.0, 0.1)})
    ask = [ChatMessage("user", said)]
    assert offered_tools(ask, BUILTIN.specs) == (BUILTIN["get_current_time"].spec,)
    # The whole sentence is nearer to chat; the request after the context is the clock's.
    assert offer_tools(ask, BUILTIN.specs, router).tools == (BUILTIN["get_current_time"].spec,)
    alone = [ChatMessage("user", "what's the time difference with Tokyo")]
    assert offer_tools(alone, BUILTIN.specs, _time_router(
        {"what's the time difference with Tokyo": (0.4, 0.0, 0.9)})) == Offer(())
