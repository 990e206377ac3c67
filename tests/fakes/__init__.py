"""One home for the fakes tests share: engines (asr, llm, tts, vad) and a clock.

Fakes are for scenario tests of timing and wiring; adapters are proven on the real models.
"""
