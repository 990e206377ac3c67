"""Every way to reach the app by keyboard, as text the Settings dialog shows and a screen
reader reads line by line: the window's own keys, the global key, and for each desktop the
binding of ``desktop-agent ptt`` with the absolute path of this install (or bundle), ready
to copy.

Pure text: the window's keys and the command's path are passed in.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence


def shortcut_sheet(window_keys: Sequence[tuple[str, str]], talk_key: str, global_key: str,
                   command: str, dictate_key: str = "") -> str:
    """The sheet.

    Args:
        window_keys: (what it does, its keys) of the window's menu actions and buttons.
        talk_key: the in-window push-to-talk key (``interaction.ptt_key``).
        global_key: ``shortcuts.global_push_to_talk`` ('' = none).
        command: the absolute path of the running ``desktop-agent``.
        dictate_key: ``shortcuts.global_dictate`` ('' = none).
    """
    cmd = shlex.quote(command)
    lines = ["In the window:", f"  {talk_key}: hold to talk (push-to-talk)"]
    lines += [f"  {keys}: {what}" for what, keys in window_keys]
    lines += ["", "From any program:"]
    if global_key.strip():
        lines.append(f"  {global_key}: tap to talk and tap again to send, or hold while you "
                     "speak (X11; KDE, GNOME 48+ and Hyprland through the desktop portal)")
    else:
        lines.append("  No global key is set (Shortcuts > Global push-to-talk key).")
    if dictate_key.strip():
        lines.append(f"  {dictate_key}: hold (or tap, then tap again) to dictate into the "
                     "window you are in")
    lines += [
        f"  {cmd} ptt toggle | start | stop | cancel, bound to a key of your desktop,",
        f"  and {cmd} dictate toggle | start | stop to dictate into the focused window:",
        "",
        "GNOME (Settings > Keyboard > Custom Shortcuts > +; toggle: GNOME runs a command on "
        "press only):",
        f"  Command: {cmd} ptt toggle",
        "",
        "KDE Plasma (System Settings > Keyboard > Shortcuts > Add New > Command or Script):",
        f"  Command: {cmd} ptt toggle",
        "",
        "sway (~/.config/sway/config; a real hold):",
        f"  bindsym --no-repeat $mod+t exec {cmd} ptt start",
        f"  bindsym --release $mod+t exec {cmd} ptt stop",
        f"  bindsym $mod+Shift+t exec {cmd} ptt cancel",
        "",
        "Hyprland (~/.config/hypr/hyprland.conf; bindr runs on release):",
        f"  bind = SUPER, T, exec, {cmd} ptt start",
        f"  bindr = SUPER, T, exec, {cmd} ptt stop",
        f"  bind = SUPER SHIFT, T, exec, {cmd} ptt cancel",
        "",
        "niri (~/.config/niri/config.kdl, inside binds { }):",
        f'  Mod+T {{ spawn {json.dumps(command)} "ptt" "toggle"; }}',
    ]
    return "\n".join(lines)
