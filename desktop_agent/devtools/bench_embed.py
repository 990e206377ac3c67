"""Benchmark the sentence-embedding engine: milliseconds a sentence, one at a time and batched.

    desktop-agent bench embed [--quick] [--json]

Over 100 everyday sentences (what people say to a voice assistant, and a few longer ones):
the time to load the model, then each sentence embedded alone (as a router embeds one
utterance), repeated, as median and p95 milliseconds; then all of them in one call (as an
indexer embeds passages), as milliseconds a sentence. With 1 and with 2 intra-op threads
(``--quick``: 1 only, one round). Timing is printed, never asserted.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

SENTENCES: tuple[str, ...] = (
    "What time is it?", "Set a timer for ten minutes.", "What's the weather like tomorrow?",
    "Remind me to call mum at six.", "Turn the volume down a bit.", "Play some jazz.",
    "How many grams are in a pound?", "What's fifteen percent of eighty?", "Stop.",
    "Open my documents folder.", "Add milk to the shopping list.", "Who wrote Hamlet?",
    "Will it rain this afternoon?", "Cancel the timer.", "What day is it today?",
    "Read me my notes.", "Make a note that the boiler was serviced.", "Pause the music.",
    "How long until the timer goes off?", "Convert five miles to kilometres.",
    "What is the capital of Australia?", "Tell me a joke.", "Skip this song.",
    "Mute the sound.", "How do I reset my router password?", "When is the bin collection?",
    "Set an alarm for seven tomorrow morning.", "What's on my calendar today?",
    "Send a message to Sam saying I'm running late.", "How far is the moon?",
    "Spell necessary.", "What does the manual say about the filter?", "Louder please.",
    "Is the pharmacy open on Sunday?", "How do you make pancakes?", "Thanks, that's all.",
    "What's the square root of one hundred and forty four?", "Turn on the lights.",
    "Dim the lights in the kitchen.", "How warm is it outside?", "Start a stopwatch.",
    "What was the last thing I asked you?", "Repeat that, please.", "Say it more slowly.",
    "Which one did you mean?", "No, I meant the other one.", "Yes, go ahead.",
    "Don't do that.", "What's twelve times thirteen?", "Translate thank you into French.",
    "How many days until Christmas?", "What year did the Berlin Wall fall?",
    "Find my notes about the budget meeting.", "Delete the last note.",
    "What's the time in Tokyo?", "Give me a recipe with chicken and rice.",
    "How long should I boil an egg?", "What's the news today?", "Lock the screen.",
    "Take a screenshot.", "Open the calculator.", "Close this window.",
    "Copy the selected text.", "Type my email address.", "Next track.",
    "What's the battery level?", "Is my laptop charging?", "How much disk space is left?",
    "Remind me in twenty minutes to take the washing out.", "What did the invoice say?",
    "Summarise the document I opened.", "Who is the warranty with?",
    "When does the insurance renew?", "How do I bleed a radiator?",
    "What pressure should the boiler be at?", "Set the volume to fifty percent.",
    "I can't hear you.", "Speak up a little.", "Wait, stop talking.", "Go on.",
    "Good morning!", "How are you today?", "What can you do?", "Help.",
    "Sorry, I didn't catch that.", "Could you say the last part again?",
    "My train leaves at quarter past eight, remind me at half seven.",
    "If it rains tomorrow I'll work from home, so what's the forecast?",
    "I'd like to know whether the filter needs changing every month or every year.",
    "Please write down that the engineer is coming on Thursday between nine and twelve.",
    "Can you tell me how many tablespoons are in a quarter of a cup?",
    "The meeting moved to Friday afternoon, could you update my note about it?",
    "Which of my documents mentions the passport renewal and what does it say?",
    "Turn everything off, I'm going to bed.", "What's the weather going to be like at the "
    "weekend, and should I plan the barbecue for Saturday or Sunday?",
    "I left the oven on, how long has the timer been running?",
    "Set two timers, one for the pasta and one for the sauce.",
    "What's the difference between a kilowatt and a kilowatt hour?",
    "Play the radio.", "Goodbye.",
)


def _percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile of ascending values (nearest rank below; 0.0 for none)."""
    return ordered[int(q * (len(ordered) - 1))] if ordered else 0.0


def summarize(latencies_ms: Sequence[float]) -> dict[str, float | int]:
    """n, median, p95 and max of a list of milliseconds, rounded to 0.01 ms."""
    ordered = sorted(latencies_ms)
    if not ordered:
        return {"n": 0, "median": 0.0, "p95": 0.0, "max": 0.0}
    return {"n": len(ordered), "median": round(statistics.median(ordered), 2),
            "p95": round(_percentile(ordered, 0.95), 2), "max": round(ordered[-1], 2)}


def measure(make: Callable[[int], Any], sentences: Sequence[str] = SENTENCES,
            threads: int = 1, rounds: int = 3,
            clock: Callable[[], float] = time.perf_counter) -> dict[str, Any]:
    """Time one engine built by ``make(threads)``: load, one at a time, and batched."""
    t0 = clock()
    engine = make(threads)
    engine.embed(["warm up"])  # builds the session
    load_ms = (clock() - t0) * 1000
    single: list[float] = []
    for _ in range(rounds):
        for text in sentences:
            t = clock()
            engine.embed([text])
            single.append((clock() - t) * 1000)
    batched: list[float] = []
    for _ in range(rounds):
        t = clock()
        engine.embed(list(sentences))
        batched.append((clock() - t) * 1000 / max(1, len(sentences)))
    return {"threads": threads, "load_ms": round(load_ms, 1),
            "one_at_a_time_ms": summarize(single),
            "batched_ms_per_sentence": round(statistics.median(batched), 2) if batched else 0.0}


def run(as_json: bool = False, quick: bool = False) -> int:
    """Measure the default model with 1 and 2 threads (1 with ``quick``); print the figures.

    Returns the exit status: 1 (with the error's fix) when the model cannot be loaded.
    """
    from desktop_agent.adapters.embed.embed_minilm import load_embedder
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.core.errors import ModelError

    resolver = ModelResolver(load_manifest())
    try:
        first = load_embedder(resolver)
    except ModelError as exc:
        print(exc.describe(), file=sys.stderr)
        return 1
    words = [len(s.split()) for s in SENTENCES]
    report: dict[str, Any] = {
        "model": first.model_id, "sentences": len(SENTENCES),
        "words_median": statistics.median(words), "words_max": max(words), "runs": []}
    for threads in (1,) if quick else (1, 2):
        try:
            report["runs"].append(measure(lambda n: load_embedder(resolver, threads=n),
                                          threads=threads, rounds=1 if quick else 3))
        except ModelError as exc:
            print(exc.describe(), file=sys.stderr)
            return 1
    if as_json:
        print(json.dumps(report))
        return 0
    print(f"sentence embeddings: {report['model']}, {report['sentences']} sentences "
          f"({report['words_median']:g} words median, {report['words_max']} max)")
    for r in report["runs"]:
        one = r["one_at_a_time_ms"]
        print(f"  {r['threads']} thread(s): load {r['load_ms']:.0f} ms; one at a time median "
              f"{one['median']:.2f} ms, p95 {one['p95']:.2f} ms, max {one['max']:.2f} ms "
              f"(n={one['n']}); batched {r['batched_ms_per_sentence']:.2f} ms a sentence")
    return 0
