"""A question sent as a chat transcript (a legacy completions client's conversation) is read as
its last user turn; a plain question is left alone."""

from __future__ import annotations

from ragkit.rag.transcript import transcript_turns


def test_a_transcript_gives_its_last_user_turn_and_the_earlier_ones() -> None:
    assert transcript_turns("user: When does the ferry sail?\nassistant: ") == ("When does the ferry sail?", [])
    text = "system: Be brief.\nuser: Who keeps the lamp?\nassistant: Ada.\nHuman: And since\nwhen?\nAI:"
    assert transcript_turns(text) == ("And since when?", ["Who keeps the lamp?"])


def test_a_plain_question_is_not_a_transcript() -> None:
    assert transcript_turns("When does the ferry sail?") is None
    assert transcript_turns("What does user: mean in a prompt?") is None
    assert transcript_turns("assistant: no user turn here") is None
