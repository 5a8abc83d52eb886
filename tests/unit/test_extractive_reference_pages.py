"""The offline answerer on the shapes of reference pages met on unseen folders: an option's name
alone on its line above its description (reStructuredText's "``stopasgroup``", a blank line, then
the indented text), a "Default: N" line under the paragraph that says what N is of, minutes filed
in folders that name the meeting, their action items ("Helen to continue …"), a field labelled
with a word of the question's scene, and a version of another product. The passages are small
hand-written documents with those shapes."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.answer_type import has_answer_type
from tests.unit.test_extractive_asked_fact import passages

#: options as the reStructuredText loader writes a term, a blank line and an indented definition
LAMP_OPTIONS = passages(
    ("configuration.rst", "Configuration > [lighthouse] Section Values",
     "`lampwatts`\n\nThe power of the lamp in watts.\n\nDefault: 400\n\nRequired: No.\n\n"
     "`dimatdusk`\n\nIf true, the keeper dims the lamp of the whole tower at dusk and implies `dimfog` is true. "
     "This is useful for towers, such as those near towns, that would otherwise dazzle the houses nearby.\n\n"
     "Default: false\n\nRequired: No."),
)


def test_an_option_named_alone_on_the_line_above_its_description_is_quoted_with_it() -> None:
    """The sentence that answers never says which option it describes: its name is the line
    above. Before: the description alone, which names no option."""
    got = extractive_answer("Our tower dazzles the houses nearby at night. Which option should I switch on so "
                            "the keeper dims the lamp of the whole tower at dusk?", LAMP_OPTIONS)
    assert got.startswith("`dimatdusk` "), got


#: an option's default on its own line, under a description of several sentences
BERTH_OPTIONS = passages(
    ("configuration.rst", "Configuration > [harbourd] Section Values",
     "Default: false\n\nRequired: No.\n\n`minberths`\n\nThe minimum number of berths that must be free before "
     "harbourd will open successfully. A call to the port office will be made to attempt to raise the soft and "
     "hard limits of harbourd to satisfy `minberths`. The hard limit may only be raised if the harbour master "
     "asks. harbourd uses berths liberally, and will enter a failure mode when one cannot be obtained, so it's "
     "useful to be able to specify a minimum value to ensure it doesn't run out of them during the season. These "
     "limits will be inherited by the managed quays. This option is particularly useful on islands, which have a "
     "low per-quay limit by default.\n\nDefault: 1024\n\nRequired: No.\n\nIntroduced: 3.0"),
    ("configuration.rst", "Configuration > [harbourd] Section Values",
     "Default: 1024\n\nRequired: No.\n\nIntroduced: 3.0\n\n`minquays`\n\nThe minimum number of quay slots that "
     "must be available before harbourd will open successfully. harbourd will enter a failure mode when the port "
     "runs out of quay slots.\n\nDefault: 200\n\nRequired: No."),
)


def test_a_default_line_is_of_what_the_paragraph_above_it_describes() -> None:
    """"Default: 1024" never says berths; the paragraph above it does. Before: an answer of that
    line alone was refused, as one that never says what the question asks for."""
    got = extractive_answer("On an island harbourd refuses to open because of the per-quay berth limit. If I don't "
                            "configure anything, how many berths does harbourd require to be free?", BERTH_OPTIONS,
                            max_sentences=1)
    assert "Default: 1024" in got, got


#: a meeting's minutes, named for their day in a folder named for the committee
MINUTES = passages(
    ("Dredging_Committee/Meetings/March_3rd_2014.md", "Actions",
     "Actions\n=======\n* Pilots to gather soundings and share them with the board.\n"
     "* Marta to continue to drive the survey of the north channel against the old charts.\n"
     "* Tom and Ade to order new buoys for the east quay."),
)


def test_minutes_in_a_folder_named_for_the_meeting_answer_who_was_tasked() -> None:
    """The committee is named by the minutes' folder only, and the person tasked opens an action
    item ("Marta to continue …"). Before: refused, the committee's name being in no passage, and
    the item holding no person (a capital that opens a sentence is read as none)."""
    got = extractive_answer("After the March 2014 Dredging Committee meeting, who was tasked with driving the survey "
                            "of the north channel against the old charts?", MINUTES)
    assert "Marta" in got, got


def test_an_action_item_names_the_person_tasked_unless_its_first_word_is_a_common_one() -> None:
    asked = frozenset({"who", "was", "tasked", "with", "the", "survey"})
    assert has_answer_type("person", "Marta to continue to drive the survey.", asked)
    assert has_answer_type("person", "Tom and Ade to order new buoys.", asked)
    assert not has_answer_type("person", "Click to open the survey.", asked, frozenset({"click"}))
    assert not has_answer_type("person", "Marta to continue to drive the survey.",
                               frozenset({"who", "drives", "the", "survey"}))


#: a literate configuration whose code opens with its author's field
JOURNAL = passages(
    ("diary.org", "Diary",
     "A literate configuration file for extending the journaling capabilities.\n\n```\n"
     ";; Author: Harriet Q. Vance <http://example.org/hvance>\n;; Created: May 4, 2020\n```\n\n"
     "# Introduction\nI used to use the org-journal project to create daily journal entries, but what I like is "
     "one file per journal entry, and that project did more than I needed. I made my own.\n\n"
     "My requirements are simple:\n\n1. A directory of entries, `~/journal`. Each file is based on the date.\n"
     "2. A minor mode to identify a journal entry as opposed to a regular org file."),
)


def test_a_field_labelled_with_a_word_of_the_scene_does_not_answer() -> None:
    """"the author's setup" sets the scene; the question asks for a directory. Before: the
    author's field, "Author: Harriet Q. Vance <…>", as if the question had asked who."""
    got = extractive_answer("I want to copy the author's homemade journaling setup where every day gets its own "
                            "file. Which directory is supposed to hold those daily entry files?", JOURNAL)
    assert "Harriet" not in got, got


WORKBENCH = passages(
    ("workbench/layout.png", "", "Welcome to Harbourmaster 4.0\n\nFile Edit View Help"),
    ("workbench/requirements.md", "Harbourmaster 4.0 Workbench requirements",
     "# Harbourmaster 4.0 Workbench requirements\n\nThis is a working draft of the requirements of the new "
     "workbench, which is going to be built in stages."),
)


def test_a_version_of_another_product_does_not_answer_which_version_of_a_named_one() -> None:
    """"Which Python version …?" and the passages give only Harbourmaster's. Before: "Welcome to
    Harbourmaster 4.0", a version, though of another product."""
    got = extractive_answer("Which Python version is the new Harbourmaster 4 workbench going to be built on?",
                            WORKBENCH)
    assert got == REFUSAL, got
