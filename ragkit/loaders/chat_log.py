"""Chat logs (IRC, MeetBot, Pidgin and ZNC logs kept as ``.log`` or ``.txt``), written out as
Markdown-structured text.

A chat log is a line per message: ``13:32 <+postman> the POP3 proxy is at 80%``, ``(03:10:53 PM)
zzz: 23rd or 30th?``, ``[10:02] * ann waves``. Read as plain text its lines are one paragraph, so
messages without a full stop ran together into one sentence across speakers, with their times and
the channel's join and quit notices in it. The text loader hands a file whose lines are mostly
such messages (``is_chat_log``) here, one pass over the lines:

- each message is a paragraph of its own, ``nick: text`` (the time, the nick's ``@``/``+`` mode
  and its brackets go; a relay bot's ``<deer> <postman> text`` is postman's message);
- an action (``* ann waves``) is ``ann waves``;
- join, part, quit, nick-change and mode notices go;
- MeetBot's ``#topic`` (and ``#startmeeting``'s title) are headings (``#endmeeting`` goes), so the chunks follow the
  meeting's topics; ``#agreed``, ``#action``, ``#info``, ``#idea``, ``#link`` and ``#help`` read
  "Agreed: …", "Action: …" and so on after the nick;
- a program's log (its lines' levels, ``ERROR:``, where a speaker would be) is no chat log;
- any other line (a "Log opened Tue Mar 08 2005" or "Day changed" line, a message's wrapped
  continuation) is kept as written.

Linear in the file: every pattern is anchored and bounded.
"""

from __future__ import annotations

import re

from ragkit.loaders.base import escape_markdown_line

#: a time stamp: "13:06", "13:06:59", "[13:06]", "(03:01:04 PM)", "2020-11-03 15:01:04", also a date before it
_TIME = (r"(?:\[|\()?(?:\d{4}-\d\d-\d\d[ T])?\d{1,2}:\d\d(?::\d\d)?(?:\s?[AaPp][Mm])?(?:\]|\))?")
_NICK = r"[^\s<>()\[\]:]{1,40}"
#: "13:06 <@jrandom> text", "<jrandom> text" (irssi, ZNC, MeetBot's log, weechat's export)
_BRACKETED = re.compile(rf"^(?:{_TIME}[ \t]+)?<[ @+%&~!]?({_NICK})>[ \t]?(.*)$")
#: "(03:10:53 PM) zzz: text" (Pidgin), "15:01 zzz: text": a time is required, else any "Note: …" line is one
_COLON = re.compile(rf"^{_TIME}[ \t]+[@+]?({_NICK}):[ \t](.*)$")
#: "13:06  * ann waves", "(03:10 PM) *** ann has joined": an action or a notice
_STARRED = re.compile(rf"^(?:{_TIME}[ \t]+)?(\*{{1,3}})[ \t]+({_NICK})[ \t]+(.*)$")
#: "13:06 -!- ann [~a@host] has joined #i2p", "--> ann has joined", "<-- ann has quit"
_NOTICE = re.compile(rf"^(?:{_TIME}[ \t]+)?(?:-!-|-->|<--|--|=-=|\*\*\*)[ \t]")
_EVENT = re.compile(r"(?i)\b(?:has (?:joined|left|quit)|is now known as|sets mode|changed the topic"
                    r"|has changed mode|\bmode/)")
#: a relay bot's message carries the speaker's own bracketed nick: "<deer> <postman> pop3 …"
_RELAYED = re.compile(rf"^<[ @+%&~!]?({_NICK})>[ \t]?(.*)$")
_MEETBOT = re.compile(r"^#(startmeeting|topic|agreed|action|info|idea|link|help|endmeeting)\b[ \t]*(.*)$",
                      re.IGNORECASE)
_MEETBOT_LABEL = {"agreed": "Agreed", "action": "Action", "info": "Info", "idea": "Idea", "link": "Link",
                  "help": "Help wanted"}
#: a program's log ("2024-05-01 12:00:03 ERROR: disk full") is no chat: its level is no speaker
_LEVELS = frozenset({"TRACE", "DEBUG", "INFO", "NOTICE", "WARN", "WARNING", "ERROR", "ERR", "CRITICAL", "CRIT",
                     "FATAL", "ALERT", "EMERG", "SEVERE", "FINE"})
_SAMPLE = 200  # lines looked at to tell a chat log
_SHARE = 0.6  # ... of which this share must be messages or notices
_MIN_MESSAGES = 5


def _message(line: str) -> tuple[str, str] | None:
    """The speaker and text of a message line, "" as the speaker of a notice, None for other lines."""
    if m := _BRACKETED.match(line):
        nick, text = m.group(1), m.group(2)
        if relayed := _RELAYED.match(text):
            nick, text = relayed.group(1), relayed.group(2)
        return nick, text
    if _NOTICE.match(line):
        return "", ""
    if m := _STARRED.match(line):
        return ("", "") if len(m.group(1)) > 1 or _EVENT.search(m.group(3)) else ("*", f"{m.group(2)} {m.group(3)}")
    if (m := _COLON.match(line)) and m.group(1).upper() not in _LEVELS:
        return m.group(1), m.group(2)
    return None


def is_chat_log(text: str) -> bool:
    """Whether most of ``text``'s first lines are chat messages or channel notices."""
    lines = [ln for ln in text.split("\n", _SAMPLE * 2)[: _SAMPLE * 2] if ln.strip()][:_SAMPLE]
    read = [_message(ln.strip()) for ln in lines]
    messages = sum(1 for r in read if r is not None and r[0])
    return messages >= _MIN_MESSAGES and sum(r is not None for r in read) >= _SHARE * len(lines)


def chat_log_to_markdown(text: str) -> str:
    """The log's messages as ``nick: text`` paragraphs (see the module docstring)."""
    out: list[str] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        read = _message(line)
        if read is None:
            out.append(escape_markdown_line(line))
            continue
        nick, said = read
        if not nick or not said.strip():
            continue  # a notice, or an empty message
        said = said.strip()
        if nick == "*":
            out.append(escape_markdown_line(said))
            continue
        command = _MEETBOT.match(said)
        if command and command.group(1).lower() in ("startmeeting", "topic", "endmeeting"):
            if command.group(2) and command.group(1).lower() != "endmeeting":
                out.append(f"## {command.group(2)}")
            continue
        if command and command.group(1).lower() in _MEETBOT_LABEL:
            said = f"{_MEETBOT_LABEL[command.group(1).lower()]}: {command.group(2)}"
        out.append(f"{nick}: {said}")
    return "\n\n".join(out) + "\n"


__all__ = ["chat_log_to_markdown", "is_chat_log"]
