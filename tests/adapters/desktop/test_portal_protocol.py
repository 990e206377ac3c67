"""The portal's pure rules: the proposed trigger, the predicted paths, which signals count."""

from __future__ import annotations

import pytest

from desktop_agent.adapters.desktop.portal_protocol import (
    PTT_FIX,
    HoldFilter,
    is_token,
    missing_portal,
    preferred_trigger,
    register_failure_is_expected,
    request_path,
    request_problem,
    session_path,
    shortcut_edge,
    shortcut_entries,
    trigger_description,
)


@pytest.mark.parametrize(("text", "trigger"), [
    ("Ctrl+Alt+Space", "CTRL+ALT+space"),
    ("ctrl + alt + space", "CTRL+ALT+space"),
    ("Alt+Ctrl+Space", "CTRL+ALT+space"),  # the specification's order, whatever was typed
    ("Super+F9", "LOGO+F9"),
    ("Meta+Shift+f12", "SHIFT+LOGO+F12"),
    ("Ctrl+Shift+A", "CTRL+SHIFT+a"),  # the key (XKB_KEY_a), not the shifted letter
    ("Ctrl+Alt+7", "CTRL+ALT+7"),
    ("F9", "F9"),
    ("Ctrl+Alt+Return", "CTRL+ALT+Return"),
    ("Ctrl+PgUp", "CTRL+Prior"),
    ("Ctrl+Alt+Del", "CTRL+ALT+Delete"),
    ("Ctrl+,", "CTRL+comma"),
    ("Ctrl+Alt+ScrollLock", "CTRL+ALT+Scroll_Lock"),
    ("CTRL+ALT+space", "CTRL+ALT+space"),  # already the specification's form
])
def test_the_global_keys_text_is_proposed_in_the_shortcuts_specifications_form(
        text: str, trigger: str) -> None:
    assert preferred_trigger(text) == trigger


@pytest.mark.parametrize("text", [
    "", "   ", "Ctrl+Alt",  # modifiers alone cannot be expressed
    "Ctrl+K, Ctrl+C",  # two chords
    "Hyper+F9",  # no such modifier
    "Space",  # what the global key setting refuses (typing keys need Ctrl, Alt or Super)
    "Ctrl+Ä", "Ctrl+",
])
def test_what_the_setting_refuses_proposes_nothing(text: str) -> None:
    assert preferred_trigger(text) is None


def test_the_request_and_session_paths_are_predicted_from_the_unique_name_and_token() -> None:
    # As xdg-desktop-portal builds them: the sender without ':' and with '.' as '_'.
    assert request_path(":1.42", "t_1") == "/org/freedesktop/portal/desktop/request/1_42/t_1"
    assert session_path(":1.7", "s9") == "/org/freedesktop/portal/desktop/session/1_7/s9"
    assert is_token("desktop_agent_0a1b2c3d_12")
    assert not is_token("has-dash") and not is_token("") and not is_token("a.b")


PORTAL = ":1.3"
OURS = "/org/freedesktop/portal/desktop/session/1_9/s1"
IFACE = "org.freedesktop.portal.GlobalShortcuts"


def _edge(member: str, session: str = OURS, shortcut: str = "push-to-talk",
          sender: str = PORTAL, interface: str = IFACE) -> str | None:
    return shortcut_edge(sender, interface, member, (session, shortcut, 1000, {}),
                         portal_owner=PORTAL, session_handle=OURS)


def test_only_the_portals_signals_for_our_session_and_shortcut_are_edges() -> None:
    assert _edge("Activated") == "press"
    assert _edge("Deactivated") == "release"
    assert _edge("Activated", session="/org/freedesktop/portal/desktop/session/1_8/s1") is None
    assert _edge("Activated", shortcut="cancel") is None
    assert _edge("ShortcutsChanged") is None
    assert _edge("Activated", interface="org.freedesktop.portal.Other") is None
    # A program on the bus that sends us a look-alike is not the keyboard.
    assert _edge("Activated", sender=":1.66") is None
    assert _edge("Activated", sender="") is None
    assert shortcut_edge(PORTAL, IFACE, "Activated", (OURS,), portal_owner=PORTAL,
                         session_handle=OURS) is None  # too short to be one


def test_a_hold_is_one_press_then_one_release_whatever_the_desktop_repeats() -> None:
    hold = HoldFilter()
    assert hold.feed("release") is None  # nothing was down
    assert hold.feed("press") == "press"
    assert hold.feed("press") is None  # repeated while held
    assert hold.feed("release") == "release"
    assert hold.feed("release") is None
    assert hold.release_all() is None
    assert hold.feed("press") == "press"
    assert hold.release_all() == "release"  # stopped mid-hold: the release it owes
    assert not hold.held


def test_response_codes_are_problems_with_a_way_around_them() -> None:
    assert request_problem("bind", 0) is None
    refused = request_problem("bind", 1)
    assert refused is not None and refused.code == "portal_bind_refused"
    assert refused.fix.endswith(PTT_FIX)
    other = request_problem("bind", 2)
    assert other is not None and other.code == "portal_failed"
    assert "bind the push-to-talk shortcut" in other.message and "response 2" in other.message
    cancelled = request_problem("create", 1)  # only a bind has a dialog to decline
    assert cancelled is not None and cancelled.code == "portal_failed"


def test_failures_to_reach_the_interface_say_which_kind_of_desktop_this_is() -> None:
    no_gs = missing_portal("org.freedesktop.DBus.Error.InvalidArgs",
                           "No such interface 'org.freedesktop.portal.GlobalShortcuts'")
    assert no_gs.code == "portal_no_global_shortcuts"
    assert "sway" in no_gs.message and no_gs.fix == PTT_FIX
    assert missing_portal("org.freedesktop.DBus.Error.ServiceUnknown", "").code == \
        "portal_missing"
    assert missing_portal("org.freedesktop.DBus.Error.Spawn.ChildExited", "").code == \
        "portal_missing"
    assert missing_portal("org.example.Service.UnknownInterface", "").code == \
        "portal_no_global_shortcuts"  # a service's own name for it (python-dbusmock's)
    assert missing_portal("org.example.Weird", "odd").code == "portal_failed"


def test_a_portal_without_the_registry_is_not_a_problem_but_a_refusal_is() -> None:
    assert register_failure_is_expected("org.freedesktop.DBus.Error.UnknownMethod")
    assert register_failure_is_expected("org.freedesktop.DBus.Error.UnknownInterface")
    assert register_failure_is_expected("org.freedesktop.DBus.Error.ServiceUnknown")
    assert not register_failure_is_expected("org.freedesktop.portal.Error.Failed")


def test_shortcut_lists_read_from_jeepney_variants_or_plain_values() -> None:
    results = {"shortcuts": ("a(sa{sv})", [
        ("push-to-talk", {"description": ("s", "Push to talk"),
                          "trigger_description": ("s", "Ctrl+Alt+Space")})])}
    entries = shortcut_entries(results)
    assert entries == {"push-to-talk": {"description": "Push to talk",
                                        "trigger_description": "Ctrl+Alt+Space"}}
    assert trigger_description(entries) == "Ctrl+Alt+Space"
    assert shortcut_entries({"shortcuts": []}) == {}
    assert shortcut_entries({}) is None
    assert trigger_description(None) == ""
    assert trigger_description({"push-to-talk": {}}) == ""
