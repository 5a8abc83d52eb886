"""Chat logs (IRC, MeetBot, Pidgin) kept as .log or .txt: each message is a paragraph of its own,
``nick: text``, so an answer quotes one speaker's message, not a run of lines across speakers with
their times and the channel's notices; written by the test as an IRC client writes a log."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.chat_log import chat_log_to_markdown, is_chat_log
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear

IRSSI = """--- Log opened Tue Mar 08 13:00:00 2005
13:06 -!- ann [~ann@harbour.example] has joined #harbour
13:06 <@keeper> 0) hi
13:06 <@keeper> 1) ferry timetable
13:07 < ann> hi
13:07 <+bo> hi all
13:08 <@keeper> the winter timetable starts on the first of November
13:09 <+bo> the new ticket kiosk is at 70% with just the card reader missing
13:09 <@keeper> nice
13:10 <relay> <cato> will the night ferry still run on Fridays
13:10  * ann waves
13:11 -!- bo is now known as bo_away
13:12 <@keeper> cato: yes, until midnight
"""

PIDGIN = """(03:01:04 PM) keeper: Welcome to the harbour meeting.
(03:01:10 PM) keeper: On the agenda: 1) fares 2) dredging
(03:02:11 PM) bo: hi
(03:03:40 PM) keeper: I'd like to decide on a dredging date today. 12th or 19th?
(03:04:02 PM) bo: the 19th works better for the crane
(03:04:30 PM) keeper: ok, 19th it is. survey on the 14th.
"""

MEETBOT = """15:00:01 <keeper> #startmeeting harbour board
15:00:05 <keeper> #topic fares
15:01:12 <bo> the day pass should stay at 6 pounds
15:02:00 <keeper> #agreed day pass stays at 6 pounds
15:03:00 <keeper> #topic dredging
15:03:30 <keeper> #action bo to book the crane
15:04:00 <keeper> #endmeeting
"""

PROGRAM_LOG = "\n".join(f"2024-05-01 12:00:{s:02d} INFO: worker {s} started" for s in range(30)) + "\n"


def test_an_irc_log_is_a_message_to_a_paragraph_without_times_or_notices():
    assert is_chat_log(IRSSI)
    out = chat_log_to_markdown(IRSSI)
    paragraphs = out.strip().split("\n\n")
    assert "bo: the new ticket kiosk is at 70% with just the card reader missing" in paragraphs
    assert "keeper: the winter timetable starts on the first of November" in paragraphs
    assert "cato: will the night ferry still run on Fridays" in paragraphs  # a relay bot's speaker
    assert "ann waves" in paragraphs  # an action
    assert "--- Log opened Tue Mar 08 13:00:00 2005" in paragraphs  # the date line kept
    assert "has joined" not in out and "known as" not in out and "13:09" not in out and "<" not in out


def test_pidgin_and_meetbot_logs():
    assert is_chat_log(PIDGIN)
    assert "keeper: ok, 19th it is. survey on the 14th." in chat_log_to_markdown(PIDGIN).strip().split("\n\n")
    assert is_chat_log(MEETBOT)
    out = chat_log_to_markdown(MEETBOT)
    assert "## harbour board" in out and "## dredging" in out  # topics head the chunks
    assert "keeper: Agreed: day pass stays at 6 pounds" in out
    assert "keeper: Action: bo to book the crane" in out
    assert "#endmeeting" not in out


def test_prose_and_program_logs_are_no_chat():
    assert not is_chat_log(PROGRAM_LOG)  # a level is no speaker
    assert not is_chat_log("Note: the harbour opens at 6.\n" * 40)
    assert not is_chat_log("13:06 <@keeper> hi\n")  # too few messages


def test_the_text_loader_writes_a_chat_log_out(tmp_path: Path):
    path = tmp_path / "132.log"
    path.write_text(IRSSI)
    [doc] = loaders.get("text")().load(path, source="132.log")
    assert doc.metadata["markup"] == "markdown"
    assert "bo: the new ticket kiosk is at 70%" in doc.text
    other = tmp_path / "server.log"
    other.write_text(PROGRAM_LOG)
    [doc] = loaders.get("text")().load(other, source="server.log")
    assert doc.text == PROGRAM_LOG and "markup" not in doc.metadata


def test_an_answer_quotes_one_speakers_message():
    text = chat_log_to_markdown(IRSSI)
    answer = extractive_answer("How far along is the new ticket kiosk?",
                               [Passage(1, text, {"source": "132.log"})])
    assert "70%" in answer and "bo:" in answer
    assert "keeper: nice" not in answer and "13:09" not in answer


def test_hostile_lines_are_read_in_linear_time():
    for line in (lambda k: "13:06 <" + "@" * k, lambda k: "(" * k, lambda k: "13:06 " + " " * k + "x",
                 lambda k: "1:" * k, lambda k: "<a> " * k, lambda k: "* " * k, lambda k: "#topic " + "x" * 5 * k):
        assert_linear(lambda text: (is_chat_log(text), chat_log_to_markdown(text)),
                      lambda k, line=line: "13:06 <a> hi\n" * 10 + line(k) + "\n", 200_000)
