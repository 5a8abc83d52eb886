"""A "How long …?" question is answered by a length of time when the passages give one: a sentence
with another number ("version 1.3", a clause "2b)") or with "immediately" (which answers how soon a
thing happens, not how long a state lasts) does not hold the kind asked for; a length written in
words ("for a period of six months") is one. Each document is written for the test, in the shape
of a licence whose answer was passed over."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.answer_type import has_answer_type, says_duration

from .test_extractive_said_kind import _passages

LICENCE = _passages(
    ("## Keepers of the work\n\nIf the Chart Work is unkept and you become the Keeper of the Chart Work, you "
     "should immediately state, within the Chart Work, that you are its Keeper. You should also tell the chart "
     "makers' list, as in 2b) above.", "chart-licence-2.1.txt"),
    ("## Notice\n\nThis chart work may be shared under the Chart Licence, either version 2.1 of this "
     "licence or any later version.", "chart-licence-2.1.txt"),
    ("## Upkeep\n\nA Chart Work is no longer looked after when its Keeper cannot be reached by the stated "
     "means for a period of nine months. Another person then takes over.",
     "chart-licence-2.1.txt"),
)


def test_how_long_is_answered_by_the_length_of_time_not_another_number() -> None:
    """Before, the sentence that says "immediately" (and "2b)") shared most words and was taken to
    hold the length asked for; the sentence with "nine months" was passed over."""
    answer = extractive_answer("How long must the Keeper of a chart be unreachable before the Chart Work "
                               "counts as unkept under the Chart Licence?", LICENCE)
    assert "nine months" in answer


def test_a_clause_reference_is_no_number_and_words_count_as_lengths() -> None:
    words = frozenset({"how", "long"})
    assert not has_answer_type("number", "Tell the list, as in 2b) above.", words)
    assert not has_answer_type("number", "As section 4.2 says, it is kept.", words)
    assert not has_answer_type("number", "You should immediately state it.", words)
    assert has_answer_type("number", "It returns immediately.", frozenset({"how", "soon"}))
    assert says_duration("for a period of nine months")
    assert says_duration("duration: 1643")  # a record's field: a length of time as a bare number
    assert not says_duration("tide gauges: 1643")
    assert not has_answer_type("date", "duration: 1554", frozenset({"which", "decade"}))


ROOMS = _passages(
    ("## Participants\n\nFor `in-progress` rooms the default Status of a participant is `connected`; a "
     "participant may stay in the room list.", "harbour_rooms_v1.yaml"),
    ("## MaxParticipantDuration\n\nThe maximum time a participant can stay connected to a room, in seconds. "
     "The default is 14400 seconds (4 hours).", "harbour_rooms_v1.yaml"),
)


def test_how_long_by_default_is_answered_by_a_default_that_is_a_length() -> None:
    """"How long … by default?" asks a default that is a length of time: before, the default
    status `connected` (a value, and the words "default", "connected", "participants") was quoted."""
    answer = extractive_answer("Participants in my harbour rooms get cut off after a few hours. How long may a "
                               "participant stay connected to a room by default?", ROOMS)
    assert "14400 seconds" in answer and "in-progress" not in answer


CHORES = _passages(
    ("## Chores\n\nChores are started with the `add_chore` method of the kiln and run while it serves. "
     "The kiln waits for its chores when it stops, up to 30 seconds by default.", "chores.md"),
    ("## Stopping\n\nWhen the kiln stops, every chore still running is awaited. A chore that does not finish "
     "within the config `CHORE_STOP_GRACE` is cancelled.", "chores.md"),
)


def test_which_setting_controls_how_long_is_answered_by_the_setting_not_a_length() -> None:
    """"Which config setting controls how long …?" asks the setting's name: before, a passage's
    length of time ("30 seconds") made every sentence without one hold no answer, and the sentence
    that names the setting was refused."""
    answer = extractive_answer("When we stop the kiln, some chores we started with add_chore get cancelled half "
                               "way. Which config setting controls how long the kiln waits for them to finish?", CHORES)
    assert "CHORE_STOP_GRACE" in answer


SHARE = _passages(
    ("## Synopsis\n\nCreate, list or withdraw a shared link to the given chart. If successful, the last line "
     "of the output holds the link. Exact powers depend on the chart store, but by default the link is always "
     "made with the fewest limits - e.g. no password, readable without an account.", "tidectl_share.md"),
    ("## Synopsis\n\nIf you supply the --ttl flag, it will set the time the link lasts, otherwise it will use "
     "the default (30 days). Not all chart stores honour --ttl.", "tidectl_share.md"),
)


def test_how_long_by_default_is_answered_by_the_default_length_in_brackets() -> None:
    """Before, "the default (30 days)" was no default and a length of time no value, so the
    sentences about the link's limits were the best and the question was refused."""
    answer = extractive_answer("If I share a chart with tidectl share and don't pass --ttl, how long does "
                               "the link stay valid by default?", SHARE)
    assert "30 days" in answer


def test_a_second_before_a_noun_is_an_ordinal_not_a_length() -> None:
    assert not says_duration("Require re-authentication with both the password and a second factor.")
    assert not says_duration("Keep a second copy of the tide tables on a second device.")
    assert says_duration("Wait a second, then retry the harbour gate.")
    assert says_duration("The gate stays open for a few seconds before it closes.")
    assert says_duration("It takes a second or two to raise the barrier.")
