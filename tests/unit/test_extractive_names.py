"""Answers that name what was asked for: a question in British spelling meets a page in American
spelling; a "Which …?" question is answered by the sentence that names the things, not by the one
that restates the question; and a paper's title in title case is no one's name. Each document is
written for the test, in the shape of a page where the answerer went wrong."""

from __future__ import annotations

import pytest

from ragkit.rag.extractive import REFUSAL, extractive_answer, lacks_asked_kind
from ragkit.rag.extractive.answer_type import answer_type, has_answer_type
from ragkit.rag.extractive.text import stem
from ragkit.rag.passages import Passage

from .test_extractive_said_kind import _passages


@pytest.mark.parametrize("british, american", [
    ("organisations", "organizations"), ("organised", "organized"), ("licence", "license"),
    ("colour", "color"), ("behaviours", "behaviors"), ("analysed", "analyzed"), ("centre", "center"),
    ("catalogue", "catalog"), ("modelling", "modeling"), ("cancelled", "canceled"), ("grey", "gray"),
])
def test_a_british_spelling_is_the_american_word(british: str, american: str) -> None:
    assert stem(british) == stem(american)


@pytest.mark.parametrize("one, other", [("your", "hour"), ("four", "for"), ("raise", "rise"), ("prise", "price")])
def test_the_spelling_fold_joins_no_other_words(one: str, other: str) -> None:
    assert stem(one) != stem(other)


def test_a_question_in_british_spelling_is_answered_from_a_page_in_american_spelling() -> None:
    """Before: "licence" was never said by the page's "License", so the answer was refused as
    one that does not name the thing asked for."""
    passages = _passages(
        ("## Tide tables\n\nThe tide tables are published under the Open Harbor License, version 2. "
         "They are printed each spring by the harbor office.", "tables.md"),
    )
    got = extractive_answer("What licence are the tide tables published under?", passages)
    assert "Open Harbor License" in got, got


FERRIES = _passages(
    ("## Do we need a company to run a ferry?\n\nMany villages don't want the trouble of "
     "boats, so they find a cooperative instead. A cooperative runs the boats on your behalf, "
     "usually for a share of the fares. Northwind Ferries, Saltmarsh Co-op and Harbor Link are examples "
     "of cooperatives that run ferries for small villages.", "governance.md"),
    ("## Do we need a licence?\n\nYou don't need a licence to run a ferry service unless you carry "
     "more than twelve passengers. If you want to run boats for your village, you can set up a ticket "
     "desk for the ferry, but the fares are not tax-free.", "governance.md"),
)


def test_a_which_question_is_answered_by_the_sentence_that_names_the_things() -> None:
    """Before: the sentence that restates the question's own situation ("Many villages don't want
    the trouble of boats …") was quoted, not the one that names the cooperatives."""
    got = extractive_answer("We don't want to run boats for our village. Which cooperatives could run "
                            "its ferry?", FERRIES)
    assert got.startswith("Northwind Ferries, Saltmarsh Co-op and Harbor Link"), got


PAPER = _passages(
    ("Tidal Harmonic Analysis: A Noise-Resilient Formulation of Harmonic Tide Prediction\n"
     "Marta Quell, Jonas Birkeland-Ruud\n\n"
     "Abstract. We give a formulation of harmonic tide prediction that is resilient to sensor noise "
     "and preserves the guarantees of classical tidal harmonic analysis.", "tides.pdf"),
)


def test_a_papers_title_in_title_case_is_no_ones_name() -> None:
    """"Who are the authors of the paper on tidal harmonic analysis?": before, the title line
    ("… Noise-Resilient Formulation …") read as a name and was quoted as the authors."""
    got = extractive_answer("Who are the authors of the paper on tidal harmonic analysis?", PAPER)
    assert "Marta Quell" in got, got


def test_a_name_is_a_name_though_the_passages_write_other_words_in_lower_case() -> None:
    common = frozenset(stem(w) for w in "formulation noise resilient harmonic tide prediction".split())
    assert has_answer_type("person", "Marta Quell, Jonas Birkeland-Ruud", frozenset(), common)
    assert not has_answer_type("person", "A Noise-Resilient Formulation of Harmonic Tide Prediction",
                               frozenset(), common)
    assert has_answer_type("person", "A Noise-Resilient Formulation of Harmonic Tide Prediction", frozenset())
    assert REFUSAL != extractive_answer("Who are the authors of the paper on tidal harmonic analysis?", PAPER)


def test_the_words_of_a_name_stand_apart_by_spaces_alone() -> None:
    """A title's "Harbours: A Survey" or "Tide-Resilient" joins no two words of one name."""
    assert not has_answer_type("person", "Harbours: A Survey", frozenset({"harbours"}))
    assert not has_answer_type("person", "On Tide-Resilient harbours", frozenset())
    assert has_answer_type("person", "written by Marta J. Quell", frozenset())


def test_a_politicians_title_ends_no_sentence() -> None:
    """"West Harbor Sen. Marta Quell introduced …": before, the sentence was cut after "Sen.", and
    the act's name was in no sentence the question's words led to; "The act aims to …" answered."""
    passages = _passages(
        ("States are trying many options. West Harbor Sen. Marta Quell introduced and passed the Tide "
         "Watch Act this year. The act aims to give a life jacket to every child in the state.", "bulletin.pdf"),
    )
    got = extractive_answer("Which West Harbor act aims to give a life jacket to every child in the state?", passages)
    assert "Tide Watch Act" in got, got


def test_how_long_is_answered_by_a_length_of_time() -> None:
    """"How long did the ferry keep sailing …?": before, the table row with the accident's date
    (a number, but no length of time) was quoted instead of "for 4.5 hours"."""
    passages = _passages(
        ("Incidents at sea, 1995-2005\n\nMarch 12, 2001 Port Aldous, Ferry Northwind 12 lost 0 injured The "
         "ferry was on a night crossing from Saltmarsh to Port Aldous. Radio contact was lost after the "
         "engine fire. The ferry kept sailing on a northerly heading for 4.5 hours and reached the outer "
         "harbour.", "incidents.pdf"),
    )
    got = extractive_answer("In the 2001 Northwind 12 engine fire near Port Aldous, how long did the ferry keep "
                            "sailing after radio contact was lost?", passages)
    assert "4.5 hours" in got.split("[1]")[0], got


def test_a_version_note_answers_the_question_that_asks_for_the_version() -> None:
    """"Since which release is … deprecated?": the note "Deprecated since version 4.2.0." above
    the sentence is the answer (before, no version note was ever a candidate, and the sentence
    without its version was quoted)."""
    passages = _passages(
        ("## Exporters\n\nKelp can write tide tables as CSV or as JSON.\n\nDeprecated since version 4.2.0.\n"
         "Support for the spreadsheet exporter is deprecated and will be removed in a future release.\n"
         "Use the CSV exporter instead.", "exporters.md"),
    )
    got = extractive_answer("Since which release is Kelp's support for the spreadsheet exporter deprecated?", passages)
    assert "4.2.0" in got, got


def test_a_which_answer_reads_on_to_the_sentence_that_names_the_thing_asked_for() -> None:
    """"Which university did the people who reported … come from?": the best sentence describes
    the flaw; the next paragraph names the reporters and their university (before: the first
    sentence alone was quoted)."""
    passages = _passages(
        ("### Fix dock flooding\n\nThere is a flooding of the ALDO, BRCH and COVE docks in storms where the "
         "tide gates did not close. These floods could damage moored boats.\n\nThese issues were reported by Marta "
         "Quell and Jonas Birk of Saltmarsh Polytechnic University.", "2.1.rst"),
    )
    got = extractive_answer("Which university did the people who reported the ALDO, BRCH and COVE dock "
                            "flooding come from?", passages)
    assert "Saltmarsh Polytechnic University" in got, got


def test_a_later_chunk_of_the_same_section_ranks_nearly_as_its_first() -> None:
    """The chunker cut a list of options: its first chunk ranks first, the rest ninth. Before, the
    first chunk's items were quoted for "Which vessel types … allow by default?", though the ninth
    holds the option asked about; a later chunk of the same section now decays half as much."""
    first = ("* `allow_cargo` - A list of vessel cargo that should be allowed for night moorings. Defaults to `[]`. "
             "You can use `['*']` to accept all cargo.\n"
             "* `allow_pilots` - Indicate that vessel pilots should be allowed for night moorings. Defaults to `False`.\n")
    later = ("The following arguments are supported:\n\n* `allow_vessels` - A list of vessel types that should be "
             "allowed for night moorings. Defaults to `['FERRY']`. You can use `['*']` to allow all vessel types.")
    other = [f"## Tides {i}\n\nThe harbour master posts the tide table for day {i} at the gate." for i in range(7)]
    passages = [Passage(1, first, {"source": "harbor.md", "heading": "NightMooring"})]
    passages += [Passage(2 + i, t, {"source": f"tides{i}.md", "heading": f"Tides {i}"}) for i, t in enumerate(other)]
    passages += [Passage(9, later, {"source": "harbor.md", "heading": "NightMooring"})]
    got = extractive_answer("Which vessel types does NightMooring allow by default?", passages)
    assert "`['FERRY']`" in got, got


def test_a_question_that_asks_for_a_name_is_refused_by_an_answer_that_names_nothing() -> None:
    """"What is the name of the booking tool the harbour staff use?": the passages say why bookings
    are reviewed but name no tool; before, those sentences were the answer."""
    passages = _passages(
        ("## Bookings\n\nThe primary purpose of reviewing bookings is to keep the harbour safe. All of the "
         "tools and processes of booking are designed to this end. At the harbour, staff review every "
         "booking before a boat moors.", "bookings.md"),
    )
    question = "What is the name of the booking tool that the harbour staff use?"
    got = extractive_answer(question, passages)
    assert got == REFUSAL or lacks_asked_kind(question, got), got
    named = _passages(("## Bookings\n\nThe harbour staff book moorings in Tidewatch, a web tool. "
                       "All of the tools of booking are designed to keep the harbour safe.", "bookings.md"))
    got = extractive_answer(question, named)
    assert "Tidewatch" in got and not lacks_asked_kind(question, got), got


def test_whose_is_answered_by_a_name_in_the_possessive() -> None:
    """"Whose buoy …?": "[Marlow's buoy](…)" names the owner; before, "whose" was a word to
    match and a single name in the possessive no owner, so the answer was refused."""
    passages = _passages(
        ("## Writing good logbook entries\n\nWill they understand why the change was made? Reading the harbour log may reveal what was done but it may not "
         "reveal why, which can make it harder for future harbour masters to know whether they can move "
         "[Marlow's buoy](https://example.org/buoy).\n\nIt's a good habit to write the reason first.",
         "log.md"),
    )
    got = extractive_answer("Whose buoy does the logbook guide mention when it says future harbour masters "
                            "need to know why a change was made?", passages)
    assert "Marlow's buoy" in got, got
    assert not has_answer_type("owner", "It's a good habit to write the reason first.", frozenset())


def test_a_which_question_with_how_many_inside_asks_for_the_thing() -> None:
    """"Which environment variable controls how many gauges …?" asks for a variable: before, its
    "how many" made it a number question, and the answer that names the variable was refused
    for quoting no number."""
    passages = _passages(
        ("## Options\n\n`--gauges`: This option controls the number of parallel gauge readers. This can "
         "also be specified via the `KELP_GAUGES` environment variable. The command line option takes "
         "precedence over the environment variable.", "options.md"),
    )
    question = "Which environment variable controls how many gauge readers Kelp runs in parallel?"
    got = extractive_answer(question, passages)
    assert "KELP_GAUGES" in got and not lacks_asked_kind(question, got), got


def test_a_when_question_puts_a_close_dated_line_of_a_later_passage_first() -> None:
    """"When did Kelp 4.2.0 come out?": the release's notes rank first but their sentences hold no
    date; the date under the release's heading is in a later passage and scores nearly as well.
    Before, the undated sentence was the answer (then refused: it says no date)."""
    passages = [
        Passage(1, "### General changes\n\nPython 3.14 is now supported. Older versions of Kelp will work on it but may warn.",
                {"source": "v4.2.0.rst", "heading": "What's new in Kelp 4.2.0 > General changes"}),
        Passage(2, "### Tide tables\n\nThe tide table reader now skips blank rows.",
                {"source": "v4.1.0.rst", "heading": "What's new in Kelp 4.1.0 > Tide tables"}),
        *[Passage(3 + i, f"### Fixes\n\nThe gauge reader now skips blank rows in file {chr(97 + i)}.",
                  {"source": f"v4.1.{i}.rst", "heading": f"What's new in Kelp 4.1.{i} > Fix {i}"}) for i in range(20)],
        Passage(23, "## What's new in Kelp 4.2.0\n\nMay 15, 2025\n\nThis release adds support for Python 3.14.",
                {"source": "v4.2.0.rst", "heading": "What's new in Kelp 4.2.0"}),
    ]
    question = "When did Kelp 4.2.0 come out?"
    got = extractive_answer(question, passages)
    assert got.startswith("What's new in Kelp 4.2.0: May 15, 2025") and not lacks_asked_kind(question, got), got


@pytest.mark.parametrize("question", [
    "How short should the first line of a log message be?", "How small can a tide table be?",
    "How low may the gauge read before it warns?", "How soon after a storm is the harbour reopened?",
])
def test_how_short_asks_for_a_number(question: str) -> None:
    """"How short should the first line of a commit message be?" asks for a length ("under 50
    characters"): before, "short" (like "small", "low", "soon") was no measure, and a sentence
    about the commit's short identifier was quoted."""
    assert answer_type(question)[0] == "number"


BROKERS = _passages(
    ("## Skiff 3.1\n\nSkiff 3.1 added Amazon SQS as a supported message broker. Work has also started on a "
     "new message protocol.", "whatsnew-3.1.md"),
    ("## Skiff 4.0\n\nSkiff 4.0 supports the wasm32-unknown-unknown target:\n\n```\n"
     "rustup target add wasm32-unknown-unknown\n```\n", "whatsnew-4.0.md"),
    ("## Models\n\nThe large model, BERTLARGE, has 340M parameters.", "models.md"),
    ("## Protocols\n\nThe Skiff server speaks HTTP/1.1 and HTTP/2 over TLS.", "protocols.md"),
    ("## Index\n\nSkiff can write an index page that lets the reader navigate the document output by keyword, "
     "and PDF files tagged for screen readers in any language. Its "
     "TCP/IP tuning is in the server guide.", "index.md"),
)


@pytest.mark.parametrize("question", [
    "Which Skiff release added ZMQ as a supported message broker?",  # an acronym no passage writes
    "How do I build Skiff for the wasm32-wasi target?",  # a code no passage writes
    "Does the Skiff server speak HTTP/3?",  # a protocol's version no passage writes
    "Does Skiff write tagged PDF/UA output so that screen readers can navigate the document?",  # two acronyms as one
])
def test_a_code_or_acronym_no_passage_holds_is_refused(question: str) -> None:
    """The question names a thing by an exact code or acronym; the retriever ranks a passage that
    writes it high when any does, so none retrieved means the folder does not say. Before, a near
    miss was the answer (another broker's release, another target's commands)."""
    assert extractive_answer(question, BROKERS) == REFUSAL


def test_a_system_named_by_a_letter_a_slash_and_capitals_is_one_code() -> None:
    """"z/OS" is one name, as "PDF/UA" is: a question about it is refused when no passage writes it,
    even when every other word of it is there. Before, its "OS" was the code looked for, and the
    letters "os" are in almost any text."""
    servers = _passages(("## Running\n\nYou can run the Skiff server on a mainframe, or on a laptop running "
                         "macOS, with `skiff serve`.", "running.md"))
    assert extractive_answer("How do I run the Skiff server on a mainframe running z/OS?", servers) == REFUSAL
    assert "skiff serve" in extractive_answer("How do I run the Skiff server on a mainframe?", servers)


@pytest.mark.parametrize(("question", "expected"), [
    ("Which Skiff release added SQS as a supported message broker?", "3.1"),
    ("How many parameters does BERT-Large have?", "340M"),  # read without case, space or hyphen
    ("Does the Skiff server speak HTTP/2?", "HTTP/2"),
    ("Where is the TCP/IP tuning of Skiff described?", "server guide"),
])
def test_a_code_or_acronym_a_passage_holds_is_answered(question: str, expected: str) -> None:
    assert expected in extractive_answer(question, BROKERS)


NOTES = _passages(
    ("# Kelp v4.2 Release Notes\n\nBackward Compatibility Notes\n\n- \"kelp pull\" no longer guesses the remote.\n\n"
     "UI, Workflows & Features\n\n- Introduce \"kelp tide\", a tool meant on the server side to recreate a "
     "history.\n\n- \"kelp merge\" learned the \"--ours\" option.\n", "4.2.0.adoc"),
)


def test_a_version_written_with_a_v_answers_which_release() -> None:
    """"Git v2.44 Release Notes" heads a release's notes: "v2.44" is a version. Before, only a
    version with no letter before it was one, so the answer quoted the item without its release."""
    answer = extractive_answer("Which release introduced kelp tide?", NOTES)
    assert "v4.2" in answer and "kelp tide" in answer


SIGNALS = _passages(
    ("## Built-in\n\nYou can also manage child processes by sending specific signals to the main process. "
     "(Not supported on Windows.)\n\n- `SIGHUP`: Workers are restarted gracefully one after another.\n"
     "- `SIGTTIN`: Increase the number of worker processes by one.\n"
     "- `SIGTTOU`: Decrease the number of worker processes by one.\n", "deployment.md"),
)


def test_which_question_prefers_a_close_sentence_of_its_section_that_names_one() -> None:
    """"Which signal …?": the sentence that says "signals" names none, the list under it names
    them. Before, the answer was that sentence alone."""
    answer = extractive_answer("Which signal should I send to the Skiff main process to get one extra worker "
                               "process?", SIGNALS)
    assert "SIGTTIN" in answer


def test_a_version_question_is_not_answered_without_a_number() -> None:
    """"Which version of libtide is bundled …?" over a page that tells how to build with the bundled
    library but names no release of it: the answer writes no number, so it is no answer (the
    local provider refuses it). Before, the build sentences were given as the answer."""
    passages = _passages(("## Building\n\nIf you want to avoid a system-wide installation of libtide's headers, "
                          "you can instead build the bundled library inside Kelp's sources. The bundled copy is "
                          "used unless KELP_SYSTEM_LIBTIDE is set.", "install.md"))
    question = "Which version of libtide is bundled inside the Kelp source distribution?"
    got = extractive_answer(question, passages)
    assert got == REFUSAL or lacks_asked_kind(question, got), got
    dated = _passages(("## Building\n\nKelp's sources bundle libtide 1.0.18, built unless KELP_SYSTEM_LIBTIDE "
                       "is set.", "install.md"))
    got = extractive_answer(question, dated)
    assert "1.0.18" in got and not lacks_asked_kind(question, got), got
    assert not lacks_asked_kind("Which version control system does Kelp use?", "Kelp uses Git. [1]")
    assert not lacks_asked_kind("Which release notes mention the harbour?", "The spring notes do. [1]")


def test_a_language_named_by_a_letter_and_a_sign_is_a_name() -> None:
    """"C#" and "C++" are no words to a tokenizer of letters and digits: lost, the question about
    C# naming is answered from the JavaScript guide, whose sentence shares more of its words."""
    guides = [
        Passage(1, "## Fields\n\nPrivate fields should be named with a trailing underscore, as in `count_`.",
                {"source": "jsguide.md", "heading": "JavaScript Style Guide > Naming > Fields"}),
        Passage(2, "## Naming rules\n\nNaming rules follow Microsoft's C# naming guidelines.\n\n- Names of classes "
                "and methods: `PascalCase`.\n- Names of private and internal fields: `_camelCase`.",
                {"source": "csharp-style.md", "heading": "C# at Google Style Guide > Naming rules"}),
    ]
    answer = extractive_answer("How should private fields be named in C# code?", guides)
    assert "`_camelCase`" in answer and "trailing underscore" not in answer
    # a language no passage names is no answer's subject
    assert extractive_answer("How should private fields be named in C++ code?", guides) == REFUSAL


def test_a_paper_is_named_by_its_authors() -> None:
    """"… the decomposition in the work of Quell, Tarn and Voss": the names are the paper's byline
    (``authors`` metadata), which its later pages never write; before, no passage said them and the
    question was refused."""
    meta = {"source": "berths.pdf", "title": "Decomposing Harbour Transactions", "page": 4,
            "authors": "Mara Quell, Ivo Tarn, Lena Voss"}
    passages = [Passage(1, "Suppose we break the Booking transaction into three steps. In the first step, "
                           "Booking increments the number of reserved berths.", meta)]
    got = extractive_answer("We are splitting our Booking transaction into steps, following the decomposition in "
                            "the work of Quell, Tarn and Voss. What does the first step do?", passages)
    assert "increments the number of reserved berths" in got, got


def test_a_contributors_handle_answers_who_did_a_change() -> None:
    """Change logs credit people by their handle on the code host ("@orlaq changed …"): for "Who
    fixed …?" that is a person. Before, no sentence held a person, words of the scene were missing,
    and the question was refused. An e-mail address's domain and a decorator in code are no handle."""
    notes = _passages(("## v3.2.1 (11 Mar 2022)\n\n- @orlaq changed tide_offsets() so that it uses the datum attribute "
                       "of the given chart instead of creating a new datum object. Tidekit can now handle non-marine "
                       "tidal ranges, as discussed in 4582 (4605).", "whatsnew/3.2.rst"))
    got = extractive_answer("We chart a lake whose tides are not marine, and Tidekit used to ignore the datum of our "
                            "chart when computing tide offsets. Who fixed that?", notes)
    assert "@orlaq changed tide_offsets()" in got, got
    words = frozenset({"who", "wrote", "it"})
    assert not has_answer_type("person", "Write to harbour@example.org for help.", words)
    assert not has_answer_type("person", "Mark it with the `@cached` decorator.", words)
