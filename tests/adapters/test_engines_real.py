"""The ASR, LLM and TTS adapters on the real default models."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from desktop_agent.core.cancel import CancelToken
from desktop_agent.core.conversation.prompts import SYSTEM_PROMPT
from desktop_agent.core.ports import ChatMessage, ToolSpec
from tests.needs import unavailable

pytestmark = pytest.mark.models


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def test_piper_question_is_transcribed_back_by_whisper(speak: Any, asr: Any) -> None:
    transcript = asr.transcribe(speak("What is the capital of France?"))
    assert _words(transcript.text) == ["what", "is", "the", "capital", "of", "france"]
    assert transcript.no_speech_prob < 0.5


def test_whisper_hears_nothing_in_silence_and_short_audio(asr: Any) -> None:
    assert asr.transcribe(np.zeros(800, dtype=np.float32)).text == ""  # 50 ms: skipped
    transcript = asr.transcribe(np.zeros(16_000, dtype=np.float32))
    assert transcript.text == "" or transcript.no_speech_prob > 0.5


def test_short_utterances_take_the_short_window_and_say_the_same(speak: Any, asr: Any) -> None:
    """The short encoder window is used up to 12 s, gives what the 30 s window gives, and a
    one-word utterance does not loop ("Transfer. Transfer. ...")."""
    from desktop_agent.adapters.asr.asr_whisper import MIN_PAD_S, SHORT_WINDOW_S

    real = asr._model.transcribe
    long_calls: list[float] = []

    def spy(audio: Any, **kw: Any) -> Any:
        long_calls.append(len(audio) / 16_000)
        return real(audio, **kw)

    asr._model.transcribe = spy
    try:
        for text in ("Give me a tip for sleeping better.", "Transfer.", "Why is the sky blue?"):
            audio = speak(text)
            short = asr.transcribe(audio)
            assert long_calls == []
            asr._model.transcribe = real
            full = " ".join(s.text for s in real(audio, language="en", beam_size=1,
                                                  without_timestamps=True)[0])
            asr._model.transcribe = spy
            assert _words(short.text) == _words(full), (short.text, full)
            # Piper's voice varies run to run; Whisper tiny once heard "sky" as "skate" in
            # both windows alike: the claim is the windows agree, and both are close.
            want = _words(text)
            assert sum(a == b for a, b in zip(_words(full), want, strict=False)) >= \
                len(want) - 1, (full, text)
            assert short.no_speech_prob < 0.5 and short.segments[0].avg_logprob > -1.0
        sentence = speak("This is a longer recording for the full window.")
        reps = int((SHORT_WINDOW_S - MIN_PAD_S) * 16_000 / len(sentence)) + 1
        longer = np.concatenate([sentence] * reps)
        assert len(longer) / 16_000 + MIN_PAD_S > SHORT_WINDOW_S
        asr.transcribe(longer)
        assert len(long_calls) == 1
    finally:
        asr._model.transcribe = real


def test_whisper_decodes_the_tail_after_committed_words(speak: Any, asr: Any) -> None:
    """With the words before a pause as context, the audio after it gives only what it adds,
    and the two read as the whole sentence; the context is read in one pass, so it does not
    change how many tokens the tail may generate."""
    head = speak("Please tell me the name of")
    tail = speak("the largest planet in the solar system.")
    pause = np.zeros(4_800, dtype=np.float32)  # 0.3 s: where the recorder cuts
    whole = asr.transcribe(np.concatenate([head, pause, tail])).text
    committed = asr.transcribe(np.concatenate([head, pause[:1_600]])).text
    assert _words(committed)[:5] == ["please", "tell", "me", "the", "name"], committed
    rest = asr.transcribe(np.concatenate([pause[:480], tail]), context=committed)
    assert _words(rest.text)[-3:] == ["the", "solar", "system"], rest.text
    assert not set(_words(rest.text)[:2]) & {"please", "tell"}, rest.text  # not said again
    assert _words(committed + " " + rest.text) == _words(whole), (committed, rest.text, whole)
    assert rest.no_speech_prob < 0.5
    # Silence after the committed words adds nothing, context or not.
    silent = asr.transcribe(np.zeros(16_000, dtype=np.float32), context=committed)
    assert silent.text == "" or silent.no_speech_prob > 0.5, silent


def test_whisper_stops_at_cancel(speak: Any, asr: Any) -> None:
    cancel = CancelToken()
    cancel.cancel("test")
    long = np.concatenate([speak("This is the first sentence of a long recording.")] * 3)
    result = asr.transcribe(long, cancel)
    assert len(result.segments) <= 1


def test_piper_chunks_have_rate_and_aligned_word_timings(tts: Any) -> None:
    chunks = list(tts.synthesize("Hello there. It is nine forty now."))
    assert tts.sample_rate == 22050
    assert [c.text for c in chunks] == ["Hello there.", "It is nine forty now."]
    for chunk in chunks:
        assert chunk.audio.dtype == np.int16 and chunk.sample_rate == 22050
        assert chunk.aligned
        assert [w.word for w in chunk.words] == chunk.text.split()
        starts = [w.start_sample for w in chunk.words]
        assert starts == sorted(starts) and chunk.words[-1].end_sample <= chunk.n_samples
        assert all(w.end_sample > w.start_sample for w in chunk.words)


def test_piper_speaking_rate_changes_length(tts: Any) -> None:
    normal = sum(c.n_samples for c in tts.synthesize("Speaking rate test."))
    tts.set_speaking_rate(1.5)
    try:
        fast = sum(c.n_samples for c in tts.synthesize("Speaking rate test."))
    finally:
        tts.set_speaking_rate(1.0)
    assert fast < normal * 0.8


def test_piper_skips_text_with_nothing_to_say(tts: Any) -> None:
    assert list(tts.synthesize("  ... !? ")) == []


def test_llm_answers_and_streams(llm: Any) -> None:
    deltas = list(llm.stream_chat(
        [ChatMessage("system", "Answer in one full sentence."),
         ChatMessage("user", "What is the capital city of France?")], max_tokens=30))
    assert len([d for d in deltas if d.text]) >= 2  # streamed, not one blob
    assert "paris" in "".join(d.text for d in deltas).lower()


def test_llm_frees_each_replys_sampler_when_the_reply_ends(llm: Any) -> None:
    """llama-cpp-python's sampler chain (a vocabulary-sized buffer) is otherwise left to the
    cycle collector, which in the app comes seldom: memory crept by a chain a reply."""
    import gc

    from llama_cpp._internals import LlamaSampler

    def unfreed() -> int:
        return sum(1 for o in gc.get_objects()
                   if isinstance(o, LlamaSampler) and o.sampler is not None)

    before = unfreed()
    for question, cut in (("Name a colour.", False), ("Count from one to fifty.", True)):
        for i, _delta in enumerate(llm.stream_chat([ChatMessage("user", question)],
                                                   max_tokens=40)):
            if cut and i == 2:
                break  # a reply cut short by a barge-in
    assert unfreed() == before
    assert llm._llm._sampler is None


def test_llm_calls_the_time_tool(llm: Any) -> None:
    tool = ToolSpec("get_current_time", "Get the current local date and time.",
                    {"type": "object", "properties": {}})
    deltas = list(llm.stream_chat(
        [ChatMessage("system", "You are a voice assistant. Use tools when needed."),
         ChatMessage("user", "What time is it right now?")], tools=[tool], max_tokens=60))
    calls = [d.tool_call for d in deltas if d.tool_call]
    assert calls and calls[0].name == "get_current_time"
    assert not "".join(d.text for d in deltas).strip().startswith("{")
    plain = list(llm.stream_chat(
        [ChatMessage("system", SYSTEM_PROMPT),
         ChatMessage("user", "What is the capital of France?")], tools=[tool], max_tokens=30))
    assert not [d for d in plain if d.tool_call]
    assert "paris" in "".join(d.text for d in plain).lower()


def test_llm_gives_a_core_to_piper_once_the_opening_is_out(llm: Any) -> None:
    from desktop_agent.adapters.llm.llm_llama import OPENING_WORDS

    calls: list[tuple[int, int]] = []
    real = llm._generation_threads

    def spy(n: int) -> None:
        calls.append((n, words[0]))
        real(n)

    words = [0]
    llm._generation_threads = spy
    try:
        for delta in llm.stream_chat([ChatMessage("user", "Describe the sea in a sentence.")],
                                     max_tokens=30):
            words[0] += len(delta.text.split())
    finally:
        del llm._generation_threads
    # One core less right after the opening words were handed out, all back at the end.
    assert [n for n, _ in calls] == [llm.n_threads - 1, llm.n_threads]
    assert OPENING_WORDS <= calls[0][1] + 2 and calls[1][1] == words[0] > OPENING_WORDS


def test_llm_stops_streaming_when_cancelled(llm: Any) -> None:
    cancel = CancelToken()
    got = []
    for delta in llm.stream_chat([ChatMessage("user", "Count from one to fifty.")], cancel,
                                 max_tokens=120):
        got.append(delta)
        if len(got) == 3:
            cancel.cancel("barge-in")
    assert len(got) == 3


def test_llm_prefix_cache_makes_the_second_turn_cheaper(llm: Any) -> None:
    system = ChatMessage("system", "You are a helpful voice assistant. " * 20)
    evaluated: list[int] = []  # tokens llama.cpp evaluated per turn (not seconds: a busy
    real_eval = llm._llm.eval  # machine makes any timing ratio a coin toss)

    def counting(tokens: Any) -> None:
        evaluated[-1] += len(tokens)
        real_eval(tokens)

    llm._llm.eval = counting
    try:
        for question in ("Name a colour.", "Name a fruit."):
            evaluated.append(0)
            for _ in llm.stream_chat([system, ChatMessage("user", question)], max_tokens=1):
                break
    finally:
        llm._llm.eval = real_eval
    # The cached prefix (~200 tokens of system prompt) is not evaluated again: the second
    # turn evaluates only its own words and the chat template around them.
    assert evaluated[0] > 150 and evaluated[1] < 30, evaluated


def test_llm_prefill_leaves_only_the_user_words_for_the_endpoint(llm: Any) -> None:
    """While the user speaks, the history is evaluated; at the endpoint only the question
    is left, and the answer is the one the model gives without a prefill."""
    system = ChatMessage("system", "You are a helpful voice assistant. Answer briefly.")
    history = [system, ChatMessage("user", "Name a colour."),
               ChatMessage("assistant", "Blue is a colour many people like.")]
    question = ChatMessage("user", "Name a fruit.")
    counted: list[int] = []
    real_eval = llm._llm.eval

    def counting(tokens: Any) -> None:
        counted.append(len(tokens))
        real_eval(tokens)

    def answer() -> tuple[str, int]:
        counted.clear()
        text = "".join(d.text for d in llm.stream_chat([*history, question], max_tokens=12))
        return text, counted[0]  # the prompt; each generated token is one more eval

    llm._llm.eval = counting
    try:
        llm._llm.reset()  # nothing cached: the whole prompt is evaluated at the endpoint
        plain, cold_tokens = answer()
        llm._llm.reset()
        prefilled = llm.prefill(history)
        assert prefilled > 20  # the system prompt and the exchange went in now
        again, endpoint_tokens = answer()
        assert llm.prefill(history) == 0  # already cached: nothing to do
        llm.prefill(history, user_prefix="Name a")  # a partial transcript, read ahead
        ahead, last_words = answer()
    finally:
        del llm._llm.eval
    assert again == plain == ahead
    assert last_words < endpoint_tokens < 12 < cold_tokens, (last_words, endpoint_tokens,
                                                             cold_tokens)


def test_piper_warm_up_runs_at_load(models: dict[str, Any]) -> None:
    from desktop_agent.adapters.tts.tts_piper import PiperTts

    voice = PiperTts(models["tts"].path, threads=1, warm=False)
    calls: list[str] = []
    real = voice._voice.synthesize
    voice._voice.synthesize = lambda text, **kw: (calls.append(text), real(text, **kw))[1]
    voice.warm()
    assert calls == ["Okay, ready."]


def test_piper_runs_without_a_memory_arena(tts: Any) -> None:
    """The arena kept the largest clause's buffers for good (+200 MiB): it stays off."""
    assert tts._voice.session.get_session_options().enable_cpu_mem_arena is False


def test_any_chat_gguf_and_whisper_folder_a_user_points_at(tmp_path: Any, models: Any) -> None:
    """A user-set path (not a manifest id) loads through the same resolver and adapters."""
    import shutil

    from desktop_agent.adapters.asr.asr_whisper import WhisperAsr
    from desktop_agent.adapters.llm.llm_llama import LlamaLlm
    from desktop_agent.adapters.models.model_resolver import ModelResolver, load_manifest
    from desktop_agent.core.errors import ModelError

    resolver = ModelResolver(load_manifest())
    try:
        smol = resolver.resolve("smollm2-135m-instruct", "llm")
    except ModelError as exc:
        unavailable("the test model smollm2-135m-instruct (models/requirements-test.txt)",
                    exc.code)
    mine = tmp_path / "my-model.gguf"
    shutil.copyfile(smol.path, mine)
    user_llm = resolver.resolve(str(mine), "llm")
    assert user_llm.source == "settings"
    llm = LlamaLlm(user_llm.path, n_threads=2, n_ctx=512)
    reply = "".join(d.text for d in llm.stream_chat([ChatMessage("user", "Say hello.")],
                                                    max_tokens=8))
    assert reply.strip()

    folder = tmp_path / "whisper"
    shutil.copytree(models["asr"].path, folder)
    user_asr = resolver.resolve(str(folder), "asr")
    assert user_asr.source == "settings" and user_asr.path == folder
    assert WhisperAsr(folder).transcribe(np.zeros(16_000, dtype=np.float32)).audio_s == 1.0
