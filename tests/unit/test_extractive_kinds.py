"""Answers shaped by the kind of question: a yes/no question answered by two sentences of one
paragraph, an identifier the question writes read whole, "What colour …?" answered by a sentence
that names a colour. Each document is written for the test,
in the shape of a documentation page where the answerer quoted a sentence that did not answer."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.answer_type import (
    answer_type,
    asks_why,
    asks_yes_no,
    has_answer_type,
    is_howto,
    wants_list,
)
from ragkit.rag.extractive.query import read_question
from ragkit.rag.extractive.text import stem
from ragkit.rag.passages import Passage


def _passages(*texts: tuple[str, dict[str, str]]) -> list[Passage]:
    return [Passage(n, text, meta) for n, (text, meta) in enumerate(texts, 1)]


def test_yes_no_questions_are_told_apart() -> None:
    assert asks_yes_no("Are there several tide tables?")
    assert asks_yes_no("If I set QUIET, will the foghorn still sound?")
    assert asks_yes_no("Does the ferry run on Sundays?")
    assert not asks_yes_no("What does the ferry do on Sundays?")
    assert not asks_yes_no("Is there a way to mute the foghorn?")  # a how-to


def test_a_yes_no_answer_keeps_the_sentence_that_carries_the_fact() -> None:
    """"Are there several X?": the sentence that repeats the question says "not", the next one of
    its paragraph says what there is. Before: the first alone, then sentences of other passages."""
    passages = _passages(
        ("## Tides\n\nContrary to a common belief, there are not several tide tables for the harbour. "
         "There's just one register, kept by the harbour master.\n\nThe tides turn twice a day.", {"source": "tides.md"}),
        ("Several boats keep their own tide tables on board.", {"source": "boats.md"}),
    )
    got = extractive_answer("Are there several tide tables for the harbour?", passages)
    assert got.startswith("Contrary to a common belief") and "just one register" in got, got


def test_a_yes_no_pair_is_scored_as_one() -> None:
    """"If I set QUIET_MODE, will the lamps still blink?": a note says what the setting removes and,
    in its next sentence, what it keeps; neither sentence alone holds the setting and the lamps."""
    passages = _passages(
        ("## Settings\n\nIf the variable QUIET_MODE is set, the harbour goes quiet at night. "
         "QUIET_MODE takes precedence over LOUD_MODE.\n\n"
         "Note: QUIET_MODE silences the foghorn only. Lamps such as beacons and buoys still blink.",
         {"source": "settings.md"}),
    )
    got = extractive_answer("If I set QUIET_MODE, will the lamps still blink?", passages)
    assert got.startswith("Note: QUIET_MODE silences the foghorn only. Lamps such as beacons"), got


def test_an_identifier_the_question_writes_is_a_name_whole() -> None:
    """``HARBOUR_MODE`` is one setting: a page that only says "harbour" and "mode" is about
    something else. Before: its words matched and the other page's sentence was quoted."""
    query = read_question("What does HARBOUR_MODE change?")
    assert "harbour_mode" in query.names and query.boosts["harbour_mode"] > 1.0 > query.boosts[stem("harbour")]
    passages = _passages(
        ("The harbour mode of the lamps changes how often they blink at night.", {"source": "lamps.md"}),
        ("Setting HARBOUR_MODE switches the foghorn to its quiet tone.", {"source": "settings.md"}),
    )
    got = extractive_answer("What does HARBOUR_MODE change?", passages)
    assert "[2]" in got and "[1]" not in got, got


def test_what_a_thing_can_do_asks_for_a_list() -> None:
    assert wants_list("What can a harbour lamp do when the fog is thicker than usual?")[0]
    assert wants_list("What exactly can I do in the dry dock that the quay won't let me?")[0]
    assert not wants_list("What does a harbour lamp do?")[0]
    assert not wants_list("How can I do this?")[0]


def test_a_number_after_a_preposition_is_a_condition_not_a_list() -> None:
    assert not wants_list("What happens after three failed logins?")[0]
    assert not wants_list("How long a sabbatical do deckhands get after five years of service?")[0]
    assert wants_list("Which two lamps were added?")[0]
    assert wants_list("What are the three rules of the quay?")[0]
    assert not wants_list("Since which release can tide filters match across several lines?")[0]


def test_a_release_a_year_or_a_verb_is_no_count_of_things() -> None:
    """"Kelp 2.0 runs" and "the 2025 budget was" count no runs and no budgets: the digit of a
    release, and a verb ending in "s", made these list questions, whose answer must be a list."""
    assert not wants_list("What is the oldest Python version Kelp 2.0 runs on?")[0]
    assert not wants_list("How much of the Harbour Board's 2025 budget was set aside for dredging?")[0]
    assert not wants_list("Which pragma did the Kelp 5.0 auditors suggest?")[0]
    assert wants_list("Which 2 files does the tide gauge write?")[0]
    assert wants_list("Name 3 lamps that the quay uses.")[0]


def test_a_singular_noun_ending_in_s_asks_for_no_list() -> None:
    """"What HTTP status does …?" asks for one status: a word ending in "ss", "us" or "is" is no plural."""
    assert not wants_list("What exit status does the tide gauge give on a crash?")[0]
    assert not wants_list("Which class does the quay use for its lamps?")[0]
    assert not wants_list("What analysis does the harbour board run?")[0]
    assert wants_list("Which lamps does the quay use?")[0]


def test_a_list_right_after_a_paragraph_answers_a_list_question() -> None:
    """The paragraph says what happens and how to change it, without a colon; the list after it
    holds the choices. Before: sentences of other passages, without the list."""
    passages = _passages(
        ("# Harbour lamps\n\nHarbour lamps use a lens to light the quay when the fog comes in.", {"source": "lamps.md"}),
        ("## Thick fog\n\nBy default, a harbour lamp will dim itself if the fog is too thick for the lens. "
         "You can adjust this by setting the fog_mode option on the lamp.\n\n"
         "- \"flash\" Blink the lamp twice a second.\n- \"dim\" Lower the light to half. This is the default.\n"
         "- \"horn\" Sound the foghorn instead of lighting the lamp.\n\nLamps are cleaned every week.",
         {"source": "lamps.md"}),
    )
    got = extractive_answer("What can a harbour lamp do when the fog is thicker than usual?", passages)
    assert "fog_mode" in got and all(w in got for w in ('"flash"', '"dim"', '"horn"')), got
    assert "cleaned" not in got


def test_what_do_i_need_to_set_up_is_a_procedure() -> None:
    assert is_howto("Since the pump is a static unit, what do I need to set up so my boat drains the bilge?")
    assert is_howto("What do I need to install first?")
    assert is_howto("When the tide is high, how do I moor the boat?")
    assert not is_howto("What do I need?")
    assert not is_howto("When was the pump installed, and why?")


def test_a_procedure_asked_as_what_to_set_up_brings_its_code() -> None:
    """"What do I need to set up …?" asks for a procedure: the answer ends with the code the
    page gives for it. Before: prose sentences only, without the file to write."""
    passages = _passages(
        ("## Draining\n\nBecause the pump is a static unit by default, there is no drain linked to the bilge. "
         "In order to drain the bilge, we have to say which drain the pump uses. "
         "The easiest way to do this is by setting up a drain file.\n\n"
         "First edit `Boat.toml` and add `drain = \"drain.cfg\"`:\n\n```toml\n[boat]\ndrain = \"drain.cfg\"\n```",
         {"source": "pumps.md"}),
        ("The bilge of a boat holds water that the pump sends overboard.", {"source": "boats.md"}),
    )
    got = extractive_answer("Since the pump is a static unit, what do I need to set up so my boat drains the bilge?",
                            passages)
    assert 'drain = "drain.cfg"' in got and "```" in got, got


def test_a_reason_is_the_claim_and_the_sentence_that_explains_it() -> None:
    """"Why does X?": the sentence that says what it guards against, and the next one that says
    why, quoted once as one run (two overlapping pairs are not quoted twice). Before: the claim
    alone, without the word that explains it."""
    assert asks_why("Why does a lock seal itself?") and not asks_why("What does a lock seal?")
    passages = _passages((
        "## Sealing\n\nA lock seals not for true safety in the sense that the harbour normally cares about. "
        "It seals as a guard against blindly using the cargo that comes out of a lock that saw a storm while shut. "
        "The cargo in such a lock was likely being moved, and may be in a damaged or incomplete state.\n\n"
        "Sealed locks are opened by the harbour master.", {"source": "locks.md"}))
    got = extractive_answer("Why does a lock seal itself when a storm hits while it is shut?", passages)
    assert "damaged or incomplete" in got, got
    assert got.count("It seals as a guard") == 1, got


def test_the_sentence_after_a_list_that_speaks_of_it_completes_it() -> None:
    """"You can fit all of these with …" right after a list says how to get its items at once:
    it is quoted after the list. Before: the list alone, without the command asked for."""
    passages = _passages((
        "## Extras\n\nThe boat only needs a hull, and the following extras are optional:\n\n"
        "* `sail` - Needed if you want to use the wind.\n* `oars` - Needed if you want to row.\n\n"
        "You can fit all of these with `dock fit boat[full]`.\n\n## Colours\n\nThe hull is painted blue.",
        {"source": "boat.md"}))
    got = extractive_answer("How do I fit the boat with all of its optional extras?", passages)
    assert "`oars`" in got and "dock fit boat[full]" in got and "painted blue" not in got, got
    # a sentence after a list that does not speak of it is not part of it
    other = _passages((passages[0].text.replace("You can fit all of these with", "Boats are fitted with"),
                       {"source": "boat.md"}))
    assert "Boats are fitted" not in extractive_answer("What extras of the boat are optional?", other)


def test_a_signature_cut_off_from_its_foreword_still_signs_it() -> None:
    """The splitter put the foreword's signature ("Ada Quill (@aquill)", her role, her office) in
    a passage of its own: it still ends the foreword and names its writer, handle and all.
    Before: the foreword's sentences, without the name."""
    assert has_answer_type("person", "Ada Quill (@aquill)", frozenset())
    passages = _passages(
        ("# Foreword\n\nI stand by everything I wrote about the tides in 2015, and I am here again to double down "
         "for Tidal Notes. In April of 2015 I was honoured to write the foreword for the first book.\n\n"
         "We are all better off for the time Kit pours into understanding the sea.",
         {"source": "tidal-notes/foreword.md", "heading": "Foreword", "start": "0"}),
        ("Ada Quill (@aquill)<br>\nHead of Tides<br>\nHarbour Office<br>\nPenwith",
         {"source": "tidal-notes/foreword.md", "heading": "Foreword", "start": "1731"}),
    )
    got = extractive_answer("Who wrote the foreword of Tidal Notes?", passages)
    assert "Ada Quill" in got and "[2]" in got, got


def test_every_author_from_the_byline_the_loader_found() -> None:
    """The first page's text layer interleaves each author with an affiliation and an address, so
    its first lines hold one name; the loader's ``authors`` hold them all. Before: "Ada Quill" and
    an affiliation read as a name, when the first page was among the passages."""
    meta = {"source": "tidal ledgers.pdf", "page": "1", "start": "0", "authors": "Ada Quill, Ben Ross, Cai Lund",
            "document_title": "Tidal Ledgers for Small Harbours"}
    passages = _passages(
        ("Tidal Ledgers for Small Harbours\nAda Quill\nUniversity of Penwith\nat Port Isaac\naq@penwith.ac.uk\n"
         "Ben Ross\nUniversity of Penwith\nat Port Isaac\nbr@penwith.ac.uk\nCai Lund\nUniversity of Penwith\n"
         "ABSTRACT\nKeeping a ledger of the tides is a crucial task for small harbours.", meta),
        ("Our ledgers cut the harbour's errors by half.", {**meta, "page": "6", "start": "9000"}),
    )
    got = extractive_answer("Who are the authors of Tidal Ledgers for Small Harbours?", passages)
    assert all(name in got for name in ("Ada Quill", "Ben Ross", "Cai Lund")), got


def test_a_joined_reason_is_not_followed_by_its_own_sentence_again() -> None:
    """A why-answer quoted as two sentences of a paragraph, the second opening with "That way", is
    not followed by that second sentence once more."""
    passages = _passages((
        "## Sealing\n\nA lock seals itself when a storm hits while it is shut. "
        "That way the cargo inside is kept from the storm. Sealed locks are opened by hand.",
        {"source": "locks.md"}))
    got = extractive_answer("Why does a lock seal itself when a storm hits?", passages)
    assert got.count("That way") == 1, got


def test_the_premise_a_question_states_weighs_less_than_what_it_asks() -> None:
    """"tideCalc is deprecated; what package should I install instead?": the asker knows it is
    deprecated, so the sentence that says so is no answer; the next one names the package.
    Before: the notice that restates the premise."""
    query = read_question("tideCalc is deprecated; what package should I install instead?")
    assert query.boosts[stem("deprecated")] < query.boosts[stem("package")]
    assert read_question("Since the pump is static, what do I set?").boosts["pump"] < 1.0
    passages = _passages((
        "## tideCalc\n\nCaution: `tideCalc` is deprecated and will be removed in Harbour v3.\n\n"
        "Please migrate to the `harbour-tides` package, which provides the same API with more features.",
        {"source": "utilities/tides.md"}))
    got = extractive_answer("tideCalc is deprecated; what package should I install instead?", passages)
    assert got.startswith("Please migrate to the `harbour-tides` package"), got


def test_a_compound_whose_head_is_a_quantity_asks_for_a_number() -> None:
    """"What's the *line limit* …?" asks for a number as "What is the size …?" does: the sentence
    with the number answers, not the one about the limit's exceptions that shares more words."""
    for question in ("What's the line limit in Harbour style?", "What is the maximum line length for Harbour code?",
                     "What election timeout does the paper recommend?", "What lookup table size does it use by default?"):
        assert answer_type(question)[0] == "number", question
    for question in ("What is the default value of docs_dir?", "What is the telephone number of the bureau?",
                     "What is the reason the population fell?"):
        assert answer_type(question)[0] is None, question
    passages = _passages(
        ("Exceptions:\n\nLines where obeying the line limit is not possible (for example, a long URL in a comment).\n\n"
         "Very long identifiers are allowed to exceed the line limit. In that case, the wrapping is as produced by "
         "the harbour formatter.", {"source": "harbourguide.html"}),
        ("A Harbour source file is in Harbour Style if and only if it adheres to the rules herein.",
         {"source": "harbourguide.html"}),
        ("4.3 One statement per line\n\nEach statement is followed by a line break.\n\n4.4 Line limit: 90\n\n"
         "Harbour code has a line limit of 90 characters. Any line that would exceed this limit must be wrapped.",
         {"source": "harbourguide.html"}),
    )
    got = extractive_answer("What's the line limit in Harbour style?", passages)
    assert "90" in got and "[3]" in got and "adheres" not in got, got


def test_a_sentence_about_another_release_is_no_answer_about_the_one_asked() -> None:
    """"How many pull requests went into Kiln 2.0.0?": the 1.22.0 notes' sentence says "pull
    requests" and gives a number, but of another release: it is no answer, whatever it shares."""
    passages = _passages(
        ("Kiln 1.22.0 Release Notes\n\nKiln 1.22.0 is a big release featuring the work of 153 contributors "
         "spread over 609 pull requests.", {"source": "1.22.0-notes.rst"}),
        ("Kiln 2.0.0 Release Notes\n\nKiln 2.0.0 is the first major release since 2006. It is the result of 11 "
         "months of development and is the work of 212 contributors spread over 1078 pull requests.",
         {"source": "2.0.0-notes.rst"}),
    )
    got = extractive_answer("How many pull requests went into the Kiln 2.0.0 release?", passages)
    assert "[2]" in got and "609" not in got and "[1]" not in got, got
    # a question that asks for a version is answered by a sentence naming another one
    floor = _passages(("Kiln 2.0.0 Release Notes\n\nKiln 2.0.0 requires NumPy 1.25.2 or newer.",
                       {"source": "2.0.0-notes.rst"}),)
    assert "1.25.2" in extractive_answer("Which NumPy version does Kiln 2.0.0 require at least?", floor)
    # nor is one that asks about a release it does not number ("the minimum HDF5 version since …")
    since = _passages(("Kiln 3.10 Release Notes\n\nKiln 3.10 dropped support for the HDF5 1.8 series. "
                       "The minimum HDF5 version is now 1.10.4.", {"source": "3.10.rst"}),)
    got = extractive_answer("What is the minimum HDF5 version since Kiln 3.10 dropped the 1.8 series?", since)
    assert "1.10.4" in got, got


def test_a_version_the_asker_states_as_their_case_need_not_be_in_a_passage() -> None:
    """"Our kilns still run Python 3.10. What is the oldest Python …?": 3.10 is the asker's case, not
    what is asked; before, its absence from every passage refused the question. A version the asking
    sentence writes still must be in a passage."""
    passages = _passages(("Python version support\n\nThe main branch and releases >= 0.20.0 onwards of Kiln "
                          "only support Python 3.11.0 or greater.", {"source": "python_versions.rst"}),)
    got = extractive_answer("Our kilns still run Python 3.10. What is the oldest Python that current Kiln "
                            "supports, and from which Kiln release on does that apply?", passages)
    assert "3.11.0" in got and "0.20.0" in got, got
    refused = extractive_answer("What is the oldest Python that Kiln 0.30.1 supports?", passages)
    assert "does not contain" in refused, refused


def test_how_many_counts_the_noun_before_the_verb() -> None:
    """"How many pull requests went into …?" counts requests, not "into": the phrase after "how
    many" ends at a plural that a word other than a plural follows."""
    from ragkit.rag.extractive.answer_type import counted_noun

    assert counted_noun("How many pull requests went into the Kiln 2.0.0 release?") == stem("requests")
    assert counted_noun("How many people attended the final?") == stem("people")
    assert counted_noun("How many characters may the label of an entry have?") == stem("characters")
    assert counted_noun("How many of its own shares did the company buy back?") == stem("shares")
    assert counted_noun("How many parallel attention heads does it use?") == stem("heads")
    assert counted_noun("How many bus stops are on the line?") == stem("stops")


def test_a_release_section_answers_for_its_product_though_it_never_names_it() -> None:
    """A change log of a whole series never says its product's name: "Released: May 4, 2024"
    under the heading "1.0.3" answers "On what date was Kiln 1.0.3 released?", though a
    question naming something is otherwise answered only from documents that say it."""
    passages = _passages(
        ("## 1.0.3\n\nReleased: May 4, 2024\n\n[bug] Fixed the reader of tide tables.",
         {"source": "changelog_10.rst", "heading": "1.0 Changelog > 1.0.3"}),
        ("# What's new in Kiln 0.4?\n\nDocument date: March 21, 2008. Kiln 0.4 was last released October 12, 2008.",
         {"source": "migration_04.rst", "heading": "What's new in Kiln 0.4?"}),
    )
    got = extractive_answer("On what date was Kiln 1.0.3 released?", passages)
    assert got.startswith("Released: May 4, 2024") and "[1]" in got, got
    # another release's section is not the one asked for
    other = extractive_answer("On what date was Kiln 1.0.4 released?", passages)
    assert "May 4, 2024" not in other, other


def test_a_date_noun_that_only_modifies_another_asks_for_no_date() -> None:
    """"Which time units …?" asks for units, "What date format …?" for a format: the date noun
    modifies the noun asked for. "What time does it open?" still asks for a time."""
    assert answer_type("Which time units can I use when writing a tide rate?")[0] is None
    assert answer_type("What date format does the logbook use?")[0] is None
    assert answer_type("What time does the harbour office open?")[0] == "date"
    assert answer_type("What year did the lighthouse open?")[0] == "date"


def test_a_time_standard_asked_for_is_a_name_not_a_time() -> None:
    """"In what time standard should we set meeting times?" asks for a standard (UTC), not a time of
    day: the sentence that names it answers, not the one that gives a period of weeks."""
    assert answer_type("In what time standard should we set meeting times?")[0] is None
    assert answer_type("What time server do the gauges sync with?")[0] is None
    passages = _passages(
        ("## Meetings\n\nSkippers work across many harbours and time zones, so it is worth settling this early. "
         "Summer time starts on different days in different places. Usually it is best to set times in UTC so that "
         "summer time will not complicate things.", {"source": "crew/meetings.md", "heading": "Meetings"}),
        ("## Season\n\nThe standard sailing season will be 12 weeks for large boats and 8 weeks for small boats.",
         {"source": "season.md", "heading": "Season"}),
    )
    got = extractive_answer("Our skippers live in many countries. In what time standard should we set meeting times?",
                            passages)
    assert "UTC" in got and "12 weeks" not in got, got


def test_an_owners_quantity_or_two_quantities_are_asked_as_numbers() -> None:
    """"What was GitHub's listed price?" asks for a price ("Github: $25/month" in a comparison
    table), and "What minimum crew size and boat age …?" for two numbers: the head of the
    compound is a quantity, whatever owner or second quantity is written beside it."""
    assert answer_type("When the club compared moorings, what was Penwith's listed price?")[0] == "number"
    assert answer_type("What minimum crew size and boat age does the club look for?")[0] == "number"
    passages = _passages(
        ("## Comparing moorings\n\nThe club compared three moorings: Harbour Quay, Penwith and Old Pier. We already "
         "moor at Penwith every day. The price is not high enough to matter.", {"source": "moorings.pptx", "page": "3"}),
        ("Features: Price; Harbour Quay: Free; Penwith: $25/month; Old Pier: Free",
         {"source": "moorings.pptx", "page": "4"}),
    )
    got = extractive_answer("When the club compared moorings, what was Penwith's listed price?", passages)
    assert "$25/month" in got, got


def test_a_sentence_that_names_the_items_as_code_answers_a_list_question() -> None:
    """The best sentence names the units itself, written as code and joined by "or"; another
    page's list whose lead shares the question's words is no answer. Before: that list answered,
    as the series went unseen for its backticks and its "or" without a comma."""
    passages = _passages(
        ("## Setting the rate\n\nTide rates are written as a count and a period, such as `12/hour`. "
         "For increased clarity, extended units such as `second`, `minute`, `hour`, `day` or even "
         "abbreviations like `sec` and `min` are allowed when writing a rate.", {"source": "rates.md"}),
        ("## Gauge rates\n\nA tide gauge's rate can be written in two places:\n\n- The `rate` attribute of the gauge.\n"
         "- The `GAUGE_RATES` setting.", {"source": "gauges.md"}),
    )
    got = extractive_answer("Which time units can I use when writing a tide rate?", passages)
    assert all(f"`{unit}`" in got for unit in ("second", "minute", "hour", "day")), got
    assert "GAUGE_RATES" not in got, got

LOADER = [
    Passage(1, "## Loader mode\n\nPressing RESET twice puts a Heron board in loader mode, and its LED shows that the "
               "board is waiting for a sketch. While in loader mode, an amber light pulses slowly.",
            {"source": "reset-heron.md", "heading": "Loader mode"}),
]


def test_what_colour_is_answered_by_the_sentence_that_names_a_colour() -> None:
    answer = extractive_answer("Which colour LED shows that a Heron board is in loader mode?", LOADER)
    assert "amber" in answer, answer


def test_a_decade_is_a_date_and_a_web_address_holds_no_date_or_number() -> None:
    """"In which decade …?": "showing up in the 1960s" answers it; a talk's address
    (``https://2019.example.org/talks/…``) holds no year and no count, though its words have digits."""
    words = frozenset({"which", "decade"})
    assert has_answer_type("date", "The language showed up in the 1960s.", words)
    assert not has_answer_type("date", "recorded: 2019-08-04", words)  # a day is no decade
    assert not has_answer_type("date", "https://2019.example.org/talks/the-new-tide", words)
    assert not has_answer_type("number", "See www.example.org/2019/tides for more.", frozenset())
    assert has_answer_type("number", "See www.example.org for the 3 tides.", frozenset())



def test_why_after_a_scene_setting_phrase_and_a_paragraph_that_ends_on_a_question() -> None:
    """"In the histogram discussion, why …?" asks why as "Why …?" does. The answer's paragraph ends
    on a rhetorical question; its statements are still answers (a short paragraph that ends on a
    question asks it). Before: no why question, and the statements weighed as half a question each."""
    assert asks_why("In the tide table discussion, why was 2 picked as the base?")
    assert asks_why("According to the log, why did the lamp fail?")
    assert not asks_why("In 2020, which lamp failed?")
    passages = _passages((
        "## Bases\n\nThe comment in the tide review has more details on why 2 was chosen as the reference base. "
        "In summary, \"harbour clocks like binary numbers\". If we are going to pick a reference base, why not "
        "make it 2?\n\n## Base ten\n\nBase ten tables give exact answers at 10, 100 and 1000 metres, and a tide "
        "table in base ten is merged with another by hand, whichever base the other one uses.",
        {"source": "tide-tables.md"}))
    got = extractive_answer("In the tide table discussion, why was 2 suggested as the reference base instead of "
                            "another number?", passages)
    assert "harbour clocks like binary numbers" in got, got
