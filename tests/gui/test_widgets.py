"""Each widget on its own."""

from __future__ import annotations

from desktop_agent.core.cancel import TurnId
from desktop_agent.core.conversation.heard import HeardReport
from desktop_agent.core.turns.states import State, Transition
from desktop_agent.core.turns.telemetry import TurnSpan
from desktop_agent.gui.a11y import Announcer
from desktop_agent.gui.conversation import CUT_MARKER, ConversationView
from desktop_agent.gui.heard_panel import HeardPanel
from desktop_agent.gui.latency import LatencyWaterfall
from desktop_agent.gui.meters import LevelMeters
from desktop_agent.gui.state_diagram import StateDiagramWidget, TransitionLog
from desktop_agent.gui.status import ErrorBanner, LoadingStatus
from desktop_agent.runtime.view_api import ErrorNotice, LevelReading, LoadProgress

S = State


def _t(turn: int, a: State, b: State, cause: str, at: float) -> Transition:
    return Transition(TurnId(turn), a, b, cause, at)


def _report(turn: int, heard: str, unheard: str, cut: float = 1.5) -> HeardReport:
    return HeardReport(TurnId(turn), f"{heard} {unheard}".strip(), heard, unheard, cut, True)


def test_state_diagram_lights_target_and_describes_it(qtbot) -> None:
    w = StateDiagramWidget()
    qtbot.addWidget(w)
    w.show()
    assert w.current is S.LISTENING
    w.show_transition(_t(1, S.LISTENING, S.USER_SPEAKING, "ptt_pressed", 1.0))
    assert w.current is S.USER_SPEAKING
    assert "Current state: User speaking" in w.accessibleDescription()
    assert "ptt pressed" in w.accessibleDescription()
    assert w.grab().width() > 0  # paints every state and edge without error
    # An edge that is not one of the main ones (any -> ERROR) is drawn too.
    w.show_transition(_t(1, S.USER_SPEAKING, S.ERROR, "asr_failed", 2.0))
    assert w.grab().width() > 0 and w.current is S.ERROR


def test_transition_log_times_are_relative_to_turn_start(qtbot) -> None:
    log = TransitionLog()
    qtbot.addWidget(log)
    log.add(_t(4, S.LISTENING, S.USER_SPEAKING, "ptt_pressed", 10.0))
    log.add(_t(4, S.USER_SPEAKING, S.PROCESSING, "ptt_released", 12.25))
    assert log.rows() == [
        ("4", "Listening", "User speaking", "ptt_pressed", "+0.00"),
        ("4", "User speaking", "Processing", "ptt_released", "+2.25"),
    ]


def test_conversation_partial_then_final_then_interrupted(qtbot) -> None:
    view = ConversationView()
    qtbot.addWidget(view)
    view.set_partial(1, "how tall")
    assert "how tall" in view.toPlainText()
    view.set_user_final(1, "How tall is it?")
    view.set_partial(1, "late partial")  # must not replace the final
    assert view.turn(1).user_text == "How tall is it?"
    assert "late partial" not in view.toPlainText()
    view.set_assistant_text(1, "It is 330 metres tall and was built in 1889.")
    view.set_heard(_report(1, "It is 330 metres tall", "and was built in 1889."))
    text = view.toPlainText()
    assert "It is 330 metres tall" + CUT_MARKER.rstrip() in text
    html = view.toHtml()
    assert "line-through" in html  # the unheard part is struck through
    view.set_assistant_text(1, "more streamed text")  # the HeardReport is final
    assert "more streamed text" not in view.toPlainText()


def test_heard_panel_shows_exact_heard_text_and_keeps_newest(qtbot) -> None:
    panel = HeardPanel()
    qtbot.addWidget(panel)
    assert not panel.show_report(HeardReport(TurnId(1), "all", "all", "", 2.0, False))
    assert panel.show_report(_report(3, "The tower is tall.  It", "was built in 1889.", 2.34))
    assert panel.heard_label.text() == "The tower is tall.  It"
    assert "2.34 s" in panel.cut_label.text()
    assert "was built in 1889." in panel.dropped_label.text()
    assert "(4 words)" in panel.dropped_label.text()
    assert not panel.show_report(_report(2, "older", "cut"))
    assert panel.heard_label.text() == "The tower is tall.  It"
    assert "estimated" not in panel.cut_label.text()
    remote = HeardReport(TurnId(4), "Rome is old.", "Rome is", "old.", 0.8, True,
                         approximate=True)  # a remote voice: no alignments
    assert panel.show_report(remote)
    assert panel.cut_label.text().endswith("(word positions estimated)")
    assert "0.8 seconds, about." in panel.heard_label.accessibleDescription()


def test_latency_waterfall_last_turn_and_history(qtbot) -> None:
    lat = LatencyWaterfall()
    qtbot.addWidget(lat)
    span = TurnSpan(TurnId(2))
    for mark, at in (("endpoint", 1.0), ("asr_final", 1.2), ("llm_first_token", 1.5),
                     ("first_chunk", 1.6), ("first_audio", 1.7)):
        span.mark(mark, at)
    lat.update_span(span)
    assert lat.chart.turn_id == 2
    assert "Endpoint \u2192 ASR final: 200 ms" in lat.chart.accessibleDescription()
    assert lat.history.item(0, 3).text() == "700"
    late = TurnSpan(TurnId(1), {"endpoint": 0.0, "barge_in": 0.5, "playback_stopped": 0.58})
    lat.update_span(late)  # a late span of an older turn: history only
    assert lat.chart.turn_id == 2
    assert [lat.history.item(r, 0).text() for r in range(2)] == ["2", "1"]
    assert lat.history.item(1, 4).text() == "80"
    assert lat.chart.grab().width() > 0
    hands_free = TurnSpan(TurnId(3), {"speech_end": 4.0, "endpoint": 4.25, "asr_final": 4.3,
                                      "first_audio": 4.9})
    lat.update_span(hands_free)
    assert "Speech end \u2192 endpoint: 250 ms" in lat.chart.accessibleDescription()
    assert lat.history.item(0, 3).text() == "900"  # from the end of speech, not the endpoint
    assert lat.chart.grab().width() > 0


def test_meters_are_throttled_and_show_erle(qtbot) -> None:
    meters = LevelMeters()
    qtbot.addWidget(meters)
    meters._timer.stop()  # drive the tick by hand
    for i in range(100):
        meters.push(LevelReading(-40.0 + i * 0.1, -20.0, 18.0))
    meters.flush()
    meters.flush()  # nothing new: no redraw
    assert meters.draws == 1
    assert meters.mic.format() == "-30 dB"
    assert meters.erle.text() == "ERLE 18.0 dB"
    meters.push(LevelReading(float("-inf"), -90.0, None))
    meters.flush()
    assert meters.mic.format() == "silent" and meters.erle.text() == "ERLE \u2014"


def test_meters_redraw_on_their_own_timer(qtbot) -> None:
    meters = LevelMeters()
    qtbot.addWidget(meters)
    meters.push(LevelReading(-12.0, -6.0, 25.0))
    qtbot.waitUntil(lambda: meters.draws == 1, timeout=1000)
    assert meters.speaker.format() == "-6 dB"


def test_error_banner_show_and_dismiss(qtbot) -> None:
    banner = ErrorBanner()
    qtbot.addWidget(banner)
    assert banner.isHidden()
    banner.show_notice(ErrorNotice("model_error", "Whisper model is corrupt.", "Reinstall it."))
    assert not banner.isHidden()
    assert "model_error" in banner.code_label.text()
    assert banner.fix_label.text() == "What to do: Reinstall it."
    with qtbot.waitSignal(banner.sig_dismissed):
        banner.dismiss_button.click()
    assert banner.isHidden() and banner.notice is None


def test_loading_status_line(qtbot) -> None:
    line = LoadingStatus()
    qtbot.addWidget(line)
    assert line.update_progress(LoadProgress("asr", "loading")) == "Loading Whisper\u2026"
    line.update_progress(LoadProgress("asr", "ready"))
    line.update_progress(LoadProgress("llm", "failed", "file truncated"))
    assert line.text() == "Whisper ready \u00b7 Language model failed: file truncated"
    line.update_progress(LoadProgress("llm", "ready"))
    assert line.update_progress(LoadProgress("tts", "ready")).startswith("All models ready")


def test_announcer_updates_accessible_name(qtbot) -> None:
    ann = Announcer()
    qtbot.addWidget(ann)
    with qtbot.waitSignal(ann.sig_announced) as blocker:
        ann.announce("Assistant speaking")
    assert blocker.args == ["Assistant speaking"]
    assert ann.accessibleName() == "Assistant speaking" and ann.text() == "Assistant speaking"
    with qtbot.assertNotEmitted(ann.sig_announced):
        ann.announce("Assistant speaking")  # unchanged: not repeated
