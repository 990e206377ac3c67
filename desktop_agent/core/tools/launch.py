"""The open tools' rules: "open Abacus Pro", "open example dot org", "open my tax folder".

Two confirmed writes. ``open_app`` finds an installed application by its .desktop entry's
``Name``, ``GenericName`` and ``Keywords`` (``best_app``; entries marked ``NoDisplay`` or
``Hidden`` are never offered) and starts its ``Exec`` line without field codes
(``exec_argv``). ``open_location`` opens a spoken web address (``spoken_address``: "example
dot org" -> https://example.org) or a folder or file found under the user's own folders, with
the desktop's default handler. The adapter (``adapters/desktop/launcher.py``) reads the
files and starts the programs; everything here is pure: stdlib only.

Only applications from the menu and only http(s) addresses and the user's own files are ever
opened: never a command the words spell out, never a script or a .desktop file as a target.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from desktop_agent.core.errors import AgentError
from desktop_agent.core.tools.offers import COURTESY
from desktop_agent.core.tools.write_actions import PreparedAction, WriteContext

OPEN_APP_HINT: Final = 'open_app needs "app": the name of the application to open.'
OPEN_LOCATION_HINT: Final = ('open_location needs "target": a web address like "example dot '
                             'org", or the name of a folder or file.')
_VERB: Final = (r"(?P<verb>open|start|launch|run|fire\s+up|bring\s+up|pull\s+up|go\s+to|"
                r"take\s+me\s+to|navigate\s+to|browse\s+to|show\s+me)")
_PLACE_VERBS: Final = frozenset({"go to", "take me to", "navigate to", "browse to", "show me",
                                 "pull up"})
"""Verbs that open a place (an address, a folder), never an application ("go to sleep",
"pull up a chair")."""
_POLITE: Final = rf"^(?:(?:{COURTESY}|hey|ok|okay|so|now)[, ]+)*" \
                 r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:i\s+(?:want|need|would\s+like)\s+to\s+)?"
_OPEN: Final = re.compile(rf"{_POLITE}{_VERB}\s+(?P<up>up\s+)?(?P<what>.+?)"
                          r"(?:,?\s+(?:for\s+me|please|now|app|application|program"
                          r"|(?:would|could|can|will)\s+you))*[.!?]*$",
                          re.IGNORECASE)
_WEB: Final = re.compile(r"\s+(?:in|with|on)\s+(?:the|my|a)\s+(?:web\s+)?browser$|\s+website$"
                         r"|\s+web\s*site$|\s+page$", re.IGNORECASE)
_LOCATION: Final = re.compile(r"\b(?:folder|directory|file|document|downloads|documents|"
                              r"pictures|photos|music\s+folder|videos|desktop\s+folder)\b",
                              re.IGNORECASE)
_NAMED_FILE: Final = re.compile(r"^(?:(?:the|my|a)\s+)?(?!(?:the|my|a)\s)\S+(?:\s+\S+)*\s+"
                                r"(?:spreadsheet|presentation|pdf)$", re.IGNORECASE)
"""A file named by its kind, last ("the mortgage comparison spreadsheet"); "the spreadsheet"
alone may be the application."""
_DOT: Final = re.compile(r"\s+dot\s+|(?<=\w)\.(?=\w)", re.IGNORECASE)
_HOST: Final = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}$")
_NOT_APP: Final = re.compile(r"\b(?:timer|reminder|alarm|note|notes|the\s+door|the\s+window|"
                             r"a\s+bank\s+account|up\s+about)\b", re.IGNORECASE)
_FILLER_WORDS: Final = frozenset({
    "the", "a", "an", "my", "app", "application", "program", "please", "for", "me", "up",
    "folder", "directory", "file", "document", "called", "named", "thing", "new", "window",
})
FIELD_CODES: Final = re.compile(r"%[fFuUdDnNickvm]")
"""Exec field codes (Desktop Entry spec): dropped, as the app is opened with no file."""


@dataclass(frozen=True, slots=True)
class DesktopEntry:
    """One application's .desktop entry, as far as opening it by name needs."""

    desktop_id: str
    """'org.gnome.Calculator.desktop' (subfolders joined with '-')."""
    name: str
    exec_line: str
    generic_name: str = ""
    keywords: tuple[str, ...] = ()
    hidden: bool = False
    """NoDisplay or Hidden: not in the menu, never opened by name."""
    try_exec: str = ""
    """A program that must be installed for the entry to count ('' = none named)."""
    only_show_in: tuple[str, ...] = ()
    not_show_in: tuple[str, ...] = ()
    terminal: bool = False
    """The program runs in a terminal (it is started inside one)."""
    icon: str = ""

    def shown_in(self, desktops: Iterable[str]) -> bool:
        """Whether the menu of the desktops named by ``XDG_CURRENT_DESKTOP`` shows it."""
        current = {d.lower() for d in desktops if d}
        if self.only_show_in and not current & {d.lower() for d in self.only_show_in}:
            return False
        return not current & {d.lower() for d in self.not_show_in}


def parse_desktop_entry(text: str, desktop_id: str) -> DesktopEntry | None:
    """The application in a .desktop file's text, or None (not an application, no Exec)."""
    group, keys = "", dict[str, str]()
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            group = line.strip("[]")
            continue
        if group == "Desktop Entry" and "=" in line:
            key, value = line.split("=", 1)
            keys.setdefault(key.strip(), value.strip())  # the unlocalised key only
    if keys.get("Type") != "Application" or not keys.get("Exec") or not keys.get("Name"):
        return None
    hidden = any(keys.get(k, "").lower() == "true" for k in ("NoDisplay", "Hidden"))

    def listed(key: str) -> tuple[str, ...]:
        return tuple(k.strip() for k in keys.get(key, "").split(";") if k.strip())

    return DesktopEntry(desktop_id=desktop_id, name=keys["Name"], exec_line=keys["Exec"],
                        generic_name=keys.get("GenericName", ""), keywords=listed("Keywords"),
                        hidden=hidden, try_exec=keys.get("TryExec", ""),
                        only_show_in=listed("OnlyShowIn"), not_show_in=listed("NotShowIn"),
                        terminal=keys.get("Terminal", "").lower() == "true",
                        icon=keys.get("Icon", ""))


_STRING_ESCAPES: Final = {"s": " ", "n": "\n", "t": "\t", "r": "\r", "\\": "\\"}


def exec_argv(exec_line: str, entry: DesktopEntry | None = None) -> list[str]:
    """The program and arguments of an Exec line (Desktop Entry spec), or AgentError.

    The string escapes (backslash-s for a space, a doubled backslash) are read first, then
    the quoting; ``%c`` is the entry's name, ``%i`` its icon (``--icon NAME``), the file and
    URL codes are dropped (the app is opened with none), ``%%`` is ``%``.
    """
    line = re.sub(r"\\(.)", lambda m: _STRING_ESCAPES.get(m.group(1), "\\" + m.group(1)),
                  exec_line)
    try:
        argv = shlex.split(line.replace("%%", "\0"))
    except ValueError:
        name = entry.name if entry is not None else "That application"
        raise AgentError("app_bad_entry", f"{name} cannot be started: its menu entry's "
                         "command line is broken (an unclosed quote).",
                         "reinstall the application, or fix the Exec line of its "
                         ".desktop file") from None
    out: list[str] = []
    for arg in argv:
        if arg == "%i":
            out += ["--icon", entry.icon] if entry is not None and entry.icon else []
            continue
        if entry is not None:
            arg = arg.replace("%c", entry.name)
        out.append(FIELD_CODES.sub("", arg).replace("\0", "%"))
    return [a for a in out if a]


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9+]+", text.lower()) if w not in _FILLER_WORDS]


def app_score(entry: DesktopEntry, said: str) -> float:
    """How well the words ``said`` name ``entry`` (0: not at all).

    A word of the name counts 3, of the generic name 2, a keyword 1; the score is the share
    of the said words matched, weighted, so "text editor" finds the entry whose generic
    name is "Text Editor" before one that only has "text" as a keyword.
    """
    words = _words(said)
    if not words or entry.hidden:
        return 0.0
    name, generic = set(_words(entry.name)), set(_words(entry.generic_name))
    keywords = {w for k in entry.keywords for w in _words(k)}
    score = 0.0
    for w in words:
        score += 3 if w in name else 2 if w in generic else 1 if w in keywords else 0
    matched = sum(1 for w in words if w in name | generic | keywords)
    if matched < len(words):
        return 0.0  # every word said must name it: "abacus pro" is not "abacus"
    whole = 1.0 if set(words) == name else 0.0  # the exact name wins a tie
    return score / len(words) + whole


def best_app(entries: Iterable[DesktopEntry], said: str) -> DesktopEntry | None:
    """The menu application the words ``said`` name best, or None."""
    scored = [(app_score(e, said), -len(e.name), e.desktop_id, e) for e in entries]
    scored = [s for s in scored if s[0] > 0]
    return max(scored, key=lambda s: s[:3])[3] if scored else None


def spoken_address(said: str) -> str | None:
    """A web address from spoken words ('example dot org' -> 'https://example.org'), or None."""
    text = said.strip().lower().rstrip(".!?")
    text = re.sub(r"^(?:https?://|the\s+(?:web\s*site|page)\s+|the\s+)", "", text)
    text = re.sub(r"\s+slash\s+", "/", text)
    host, _, path = _DOT.sub(".", text).partition("/")
    host, path = host.strip(), path.replace(" ", "")
    if not _HOST.match(host):  # words left around it: "the readme.md file" is a file
        return None
    return f"https://{host}" + (f"/{path}" if path else "")


_WANT_OPEN: Final = re.compile(
    r"^(?:i\s+(?:want|need|would\s+like)|i'd\s+like|can\s+i\s+have|get)\s+(?P<what>.+?)\s+"
    r"(?:open|opened)(?:,?\s+(?:please|now|for\s+me|(?:would|could|will|can)\s+you))*"
    r"(?:,\s+(?:i|i'm|i've|we|we're|because|'?cause|since|as|so|the|my|it|it's|they"
    r"|they're)\b.*)?\W*$", re.IGNORECASE)
"""What is to be open, said as a wish ("I want the tuner app open", "get Steam open would
you, I'm gonna play something")."""
_OPEN_IT: Final = re.compile(
    r"^(?P<what>[^,]+),\s+(?:(?:can|could|would|will)\s+you\s+|please\s+)?"
    r"(?P<verb>open|bring\s+up|pull\s+up|launch)\s+(?:it|that|them)(?:\s+up)?"
    r"(?:,?\s+(?:please|now|for\s+me|would\s+you|could\s+you))*\W*$", re.IGNORECASE)
"""What is to be opened, said first ("my revision folder, open it up please")."""
_POINTER: Final = re.compile(r"^(?:it|that|this|them)(?:\s+up)?$", re.IGNORECASE)
"""No name: "open it up" points back at what was said before."""


def _as_command(text: str) -> str:
    """``text`` as "open X" when it names X first or as a wish; else as it was."""
    text = text.strip()
    if (wish := _WANT_OPEN.match(text)) is not None:
        return f"open {wish.group('what')}"
    if (first := _OPEN_IT.match(text)) is not None:
        return f"{first.group('verb')} {first.group('what')}"
    return text


def _target(text: str) -> str | None:
    text = _as_command(text)
    match = _OPEN.match(text)
    if match is None or _NOT_APP.search(text):
        return None
    what = re.sub(r"^me\s+(?=\w)", "", match.group("what").strip(), flags=re.IGNORECASE)
    if _POINTER.match(what):
        return None
    if match.group("verb").lower() in ("start", "run") and not (
            match.group("verb").lower() == "start" and match.group("up")) and not re.match(
            r"(?:the|my)\s", what, re.IGNORECASE) and not re.search(
            r"\b(?:app|application|program)\b", text, re.IGNORECASE):
        return None  # "start a conversation", "run a mile": not an application ("start up
        # Spotify" is)
    return _WEB.sub("", _REASON_AFTER.sub("", what)).strip(" ,")


_REASON_AFTER: Final = re.compile(r",\s+(?:i|i've|i'm|i'll|i'd|we|we've|we're|we'll|because"
                                  r"|'?cause|since|as|so|would you|will you|could you|can you"
                                  r"|the one|it's|it is|that's|which|you know)\b.*$",
                                  re.IGNORECASE)
"""Why it is to be opened, after a comma ("open irctc dot co dot in, I have to book
tickets"), where it is or which one ("the folder called Wedding 2025, the one with the
seating plans in", "the mortgage spreadsheet, it's in my documents"), or the request's tag
("..., would you, ..."): not part of the name."""


def open_app_args(text: str) -> dict[str, Any] | None:
    """Words rule of ``open_app``: ``{'app': <its name as said>}``, or None."""
    what = _target(text)
    if (not what or spoken_address(what) or _LOCATION.search(what) or _NAMED_FILE.match(what)
            or _WEB.search(text)):
        return None
    verb = _OPEN.match(_as_command(text))
    if verb is not None and " ".join(verb.group("verb").lower().split()) in _PLACE_VERBS:
        return None
    words = [w for w in what.split() if w.lower() not in ("the", "my", "a", "an")]
    return {"app": " ".join(words)} if words else None


_CALLED: Final = re.compile(r"^(?:file|folder|document|directory)\s+(?:called|named)\s+",
                            re.IGNORECASE)


def open_location_args(text: str) -> dict[str, Any] | None:
    """Words rule of ``open_location``: ``{'target': <address or folder as said>}``, or None."""
    what = _target(text)
    if not what or not (spoken_address(what) or _LOCATION.search(what)
                        or _NAMED_FILE.match(what)):
        return None
    what = re.sub(r"^(?:the|my|a)\s+", "", what, flags=re.IGNORECASE)
    what = re.sub(r"^(?:(?:web\s*)?page|web\s*site|site)\s+(?=\S+\s+dot\s+|\S+\.\w)", "", what,
                  flags=re.IGNORECASE)  # "go to the page bbc dot com slash portuguese"
    what = re.sub(r"^folder\s+(?:of|for|with)\s+(?:the\s+|my\s+)?", "", what,
                  flags=re.IGNORECASE)  # "the folder of the photos from Goa trip"
    named = _CALLED.sub("", what)  # "the file called budget 2024": the name is looked for
    return {"target": named if named and not spoken_address(named) else what}


def asks_open_app(text: str) -> bool:
    """Router rule: could ``text`` ask to open an application?"""
    return open_app_args(text) is not None


def asks_open_location(text: str) -> bool:
    """Router rule: could ``text`` ask to open a web address, folder or file?"""
    return open_location_args(text) is not None


def folder_words(said: str) -> list[str]:
    """The words that name a folder or file ('my tax folder' -> ['tax'])."""
    return _words(said)


def open_app_action(args: Mapping[str, Any], _ctx: WriteContext) -> PreparedAction:
    """The read-back before the app is found ("Open calculator?"); the desk replaces it."""
    app = str(args["app"])
    return PreparedAction("open_app", {"app": app}, f"Open {app}?")


def open_location_action(args: Mapping[str, Any], _ctx: WriteContext) -> PreparedAction:
    """The read-back of an address ("Open https://example.org?"); a folder's is the desk's."""
    target = str(args["target"])
    url = spoken_address(target)
    if url is not None:
        return PreparedAction("open_location", {"target": target, "url": url},
                              f"Open {url} in your browser?")
    return PreparedAction("open_location", {"target": target}, f"Open {target}?")
