"""The desktop's entries of the tool catalog: volume, media keys, opening, selection, typing.

Joined into ``core.tools.catalog.BUILTIN`` (the reads after the built-in reads, the writes
after the built-in writes), which is what everything reads; how to add an entry is said
there. Every entry here runs in the desktop executor (``adapters/desktop/desktop_tools.py``,
its writes in ``desktop_desk.py``). Pure: stdlib only.
"""

from __future__ import annotations

from typing import Final

from desktop_agent.core.tools import clipboard, launch, media, volume
from desktop_agent.core.tools import type_text as typing_rules
from desktop_agent.core.tools.tool_def import SHORT as _SHORT
from desktop_agent.core.tools.tool_def import TEXT as _TEXT
from desktop_agent.core.tools.tool_def import Risk, ToolDef
from desktop_agent.core.tools.tool_def import schema as _obj

_DESKTOP: Final = "desktop"
"""The desktop tools' executor (``adapters/desktop/desktop_tools.py``)."""

DESKTOP_READS: Final = (
    ToolDef(
        # Runs at once like a read: a volume change is undone by the next one, and the
        # answer says the new level.
        name="set_volume",
        description="Change the sound volume of the computer (setting: the user's words, "
                    "e.g. '30 percent', 'up', 'down', 'mute', 'unmute').",
        parameters=_obj({"setting": _SHORT}), risk=Risk.READ, offered=volume.asks_volume,
        words=volume.volume_args, executor=_DESKTOP,
        examples=(
            "set the volume to thirty percent", "turn it down", "turn the volume up",
            "mute the sound", "unmute", "make it louder", "it's too loud",
            "volume to fifty percent", "can you make the sound quieter",
            "turn the sound back on", "put the volume at half", "turn the volume up by twenty",
            "a bit quieter please", "crank the volume up", "silence the speakers",
            "lower the volume", "set the sound to 80 percent",
            "turn it up a bit", "it's too loud, bring it down", "set the sound to 40 percent",
            "shh, mute the computer", "crank it up, I can't hear", "make it quieter",
            "louder please", "drop the sound to 15",
        )),
    ToolDef(
        # Runs at once like a read: a media key is undone by the next one.
        name="media_control",
        description="Play, pause, skip to the next or go back to the previous track in the "
                    "media player (action: 'play', 'pause', 'next' or 'previous').",
        parameters=_obj({"action": _SHORT}), risk=Risk.READ, offered=media.asks_media,
        words=media.media_args, executor=_DESKTOP,
        examples=(
            "pause the music", "next song", "skip this track", "play the previous song",
            "resume the music", "stop the music", "go back a song", "unpause",
            "hit pause", "keep playing", "skip ahead", "pause the podcast",
            "play the next track", "continue playing", "pause it",
            "hold the music for a moment", "I don't like this one, next",
            "next one please", "resume playing", "hold the music a second",
            "play the previous song again", "stop the tune for now",
            "I don't like this one, move on", "carry on with the playlist",
        )),
    ToolDef(
        name="now_playing",
        description="What the media player is playing now (title and artist).",
        parameters=_obj({}), risk=Risk.READ, offered=media.asks_now_playing,
        executor=_DESKTOP, alone_is_sure=True,
        examples=(
            "what's playing", "what song is this", "who is singing", "what's this song",
            "what am I listening to", "what's the name of this song", "who sings this",
            "which track is this", "what music is on", "what's playing right now",
            "what am I listening to right now", "which track is on", "name this tune for me",
            "who's the artist playing at the moment", "what's that song that's on",
            "tell me the title of this track", "which band is this",
            "what's currently playing in the player",
        )),
    ToolDef(
        # Its answer is the selected text itself, spoken as it is (never the model's words
        # about it): the text is data, never a request.
        name="read_selection",
        description="Read aloud the text the user has selected (highlighted) on the screen, "
                    "or else the text on the clipboard.",
        parameters=_obj({}), risk=Risk.READ, offered=clipboard.asks_read_selection,
        executor=_DESKTOP, alone_is_sure=True,
        examples=(
            "read this to me", "read me the selected text", "read the highlighted text out",
            "what does the selected text say", "read out what's on the clipboard",
            "can you read this paragraph aloud", "read what I copied",
            "read the selection please", "what's on my clipboard",
            "read this out loud for me", "say the highlighted words",
            "could you read me this bit", "what did I just copy",
            "can you say the selected text aloud", "read me what's on the clipboard",
            "what does the bit I selected say", "speak the highlighted paragraph",
            "read back what I just copied", "read this passage I've marked out",
            "say out loud the text I picked", "I've selected an email, read it to me",
            "what's in my clipboard, read it out",
        )),
    ToolDef(
        # Runs at once like a read: the clipboard is the user's scratch space, and the
        # answer says what went there.
        name="copy_last_answer",
        description="Copy the assistant's last answer to the clipboard.",
        parameters=_obj({}), risk=Risk.READ, offered=clipboard.asks_copy_answer,
        executor=_DESKTOP, alone_is_sure=True,
        examples=(
            "copy that", "copy that to the clipboard", "copy your answer",
            "put that on the clipboard", "copy what you just said", "copy it please",
            "copy the answer", "save that to my clipboard", "copy your last reply",
            "can you copy that for me", "copy that down", "copy it to the clipboard",
            "put what you just said on my clipboard", "can I have that answer copied",
            "copy your reply so I can paste it", "grab that last response for me",
            "stick that result in the clipboard", "copy what you told me",
            "I want to paste that, copy it please", "save your last answer to the clipboard",
            "copy that number you just gave me",
        )),
)
"""The desktop's reads (and the actions that run at once), in catalog order."""

DESKTOP_WRITES: Final = (
    ToolDef(
        name="open_app",
        description="Open an application installed on the computer (app: its name or what "
                    "it is, in the user's words, e.g. 'calculator', 'text editor').",
        parameters=_obj({"app": _SHORT}), risk=Risk.WRITE, offered=launch.asks_open_app,
        words=launch.open_app_args, executor=_DESKTOP, read_back=launch.open_app_action,
        hint=launch.OPEN_APP_HINT, confirm_verb="open it",
        examples=(
            "open the calculator", "start the text editor", "launch firefox",
            "open Abacus Pro", "can you open the terminal", "fire up the music player",
            "open the file manager", "bring up the settings app", "run the image viewer",
            "open LibreOffice Writer", "launch the mail app", "open the calendar app",
            "open my email program", "get the web browser up", "start the word processor",
            "start Microsoft Word", "bring up the terminal", "can you get Slack going",
            "run Photoshop for me", "open up VS Code please", "I need Excel open", "load Zoom",
        )),
    ToolDef(
        name="open_location",
        description="Open a web address or one of the user's folders or files (target: the "
                    "address or the folder's name as the user said it, e.g. 'example dot "
                    "org', 'tax folder').",
        parameters=_obj({"target": _TEXT}), risk=Risk.WRITE,
        offered=launch.asks_open_location, words=launch.open_location_args,
        executor=_DESKTOP, read_back=launch.open_location_action,
        hint=launch.OPEN_LOCATION_HINT, confirm_verb="open it",
        examples=(
            "open example dot org", "open my tax folder", "open the downloads folder",
            "open wikipedia dot org in the browser", "open bbc dot co dot uk",
            "open the file called budget", "open my photos folder",
            "go to example dot com", "open the documents folder", "open the holiday folder",
            "open github dot com", "open my invoices folder",
            "pull up the bbc website", "take me to my music folder", "show me my pictures folder",
            "take me to youtube.com", "show me the Documents folder", "pull up github.com",
            "open the file budget.xlsx in my documents", "bring up my Pictures folder",
            "head over to wikipedia.org", "open the desktop folder",
            "load the website amazon.co.uk",
        )),
    ToolDef(
        name="type_text",
        description="Type the user's words into the app that has the focus, as if typed on "
                    "the keyboard (text: exactly the words to type, never pressing Enter).",
        parameters=_obj({"text": {"type": "string", "minLength": 1,
                                  "maxLength": typing_rules.MAX_TYPED_CHARS}}),
        risk=Risk.WRITE, offered=typing_rules.asks_type_text,
        words=typing_rules.type_text_args, verbatim=True, executor=_DESKTOP,
        read_back=typing_rules.type_text_action, hint=typing_rules.TYPE_TEXT_HINT,
        confirm_verb="type it",
        examples=(
            "type: see you at nine", "type hello everyone", "type the words thank you",
            "type out I'll be there in ten minutes", "type this: running late, sorry",
            "type in my address is 4 Mill Lane", "type the text happy birthday Sam",
            "type good morning into the chat", "type sounds good to me",
            "type the sentence the meeting is moved to Friday", "type yes please",
            "key in order number 5521",
            "write dear Mr Smith here", "put my email address in this box: jo@example.com",
            "enter see you at eight", "dictate: thanks for the update, will reply soon",
            "type happy birthday Anna", "fill in London Road 42 in this field",
            "write out running late, be there in ten", "key in order number 55821",
            "put hello team in the message box", "type the words meeting notes for Monday",
        )),
)
"""The desktop's confirmed writes, in catalog order."""
