"""Answers that supply what the question asks (a cause, a list, a byline, a procedure, a value),
not the sentence most like the question. Each document here is written for the test, in the
shape of a document where the answerer once quoted a true sentence that did not answer."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer, terms
from ragkit.rag.extractive.answer_type import counted_noun, counts, defined_term, has_answer_type, list_count
from ragkit.rag.passages import Passage


def _passages(*texts: tuple[str, dict[str, str]]) -> list[Passage]:
    return [Passage(n, text, meta) for n, (text, meta) in enumerate(texts, 1)]


MUDDLE = _passages(
    ("Out of the Muddle\nRowan Pike\n\nAbstract\n\nClutter is the biggest problem in running a small workshop. "
     "We distinguish unavoidable clutter from the avoidable kind and identify its common causes.\n\n1 Introduction\n\n"
     "Clutter makes every job slower and every tool harder to find. The biggest problem is that it grows unnoticed.",
     {"source": "muddle.pdf", "page": "1", "start": "0"}),
    ("4 Causes of clutter\n\nIn our experience, the single biggest remaining cause of clutter in most contemporary "
     "workshops is offcuts, and the more we can do to limit and manage offcuts, the better. Packaging and "
     "half-finished work come a long way behind.\n\n4.1 Clutter caused by offcuts\n\nOffcuts pile up under benches.\n",
     {"source": "muddle.pdf", "page": "4", "start": "9000"}),
)


def test_the_sentence_naming_the_cause_not_the_one_saying_the_topic_is_a_problem() -> None:
    """"What is the biggest cause of X?" asks about a cause: "X is the biggest problem" does not
    define it, though it opens with the question's last word."""
    got = extractive_answer("What is the biggest cause of clutter?", MUDDLE)
    assert got.startswith("In our experience, the single biggest remaining cause of clutter") and "offcuts" in got
    assert defined_term("What is the biggest cause of clutter?") == "cause"
    assert defined_term("What is a scope?") == "scope"


SHELVING = _passages((
    "## Tidy shelving\n\nTidy shelving is a standard way of mapping what a store holds to where it sits. "
    "A store is messy or tidy depending on how shelves, bins and labels are matched up with items. "
    "In tidy shelving:\n\n1. Each item type has its own bin.\n2. Each bin sits on one shelf.\n"
    "3. Each shelf carries a single label.\n\nThis is close to how libraries arrange books.\n",
    {"source": "shelving.md", "heading": "Tidy shelving"}),
)


def test_the_counted_rules_are_the_whole_list_not_the_sections_intro() -> None:
    """"The three rules": the count and the noun say what form the answer takes; the list that
    follows "In tidy shelving:" never says "rule" or "three". Before: a refusal."""
    got = extractive_answer("What are the three rules of tidy shelving?", SHELVING)
    assert got == ("In tidy shelving: [1]\n1. Each item type has its own bin.\n2. Each bin sits on one shelf.\n"
                   "3. Each shelf carries a single label.")
    assert list_count("What are the three rules of tidy data?") == (3, "three", "rules")
    assert list_count("How do I list the files?") == (None, "", "")


PAPERS = _passages(
    ("Ledgers Made Plain\nMarta Quell\n03 Mar 2004\n\nAbstract\n\nThe double-entry ledger, when presented in "
     "plain English, is simple.", {"source": "ledgers.pdf", "page": "1", "start": "0"}),
    ("Consensus for Everyone\nTobias Venn and Ilse Marrow\nNorthgate University\n\nAbstract\n\nWe present a "
     "ledger protocol that is plain.", {"source": "consensus.pdf", "page": "1", "start": "0"}),
)


def test_a_byline_of_one_name_alone_on_its_line_answers_who_wrote_the_paper() -> None:
    """A two-word byline opens its line: it is a person's name all the same, so the first
    paper's author answers rather than the second paper's longer byline."""
    assert extractive_answer("Who wrote Ledgers Made Plain?", PAPERS) == "Marta Quell [1]"
    assert has_answer_type("person", "Marta Quell", frozenset({"who", "wrote"}))
    assert has_answer_type("person", "Marta J. Quell", frozenset({"who", "wrote"}))  # an initial inside
    assert not has_answer_type("person", "Clutter grows unnoticed.", frozenset({"who", "wrote"}))


def test_who_is_listed_as_the_author_asks_who_wrote_it() -> None:
    """"Listed", "credited", "named" as the author say where the name stands, not what the
    document is about: the byline answers. Before: a refusal (no sentence says "listed")."""
    for question in ("Who is listed as the author of Ledgers Made Plain?",
                     "Who is credited as author of Ledgers Made Plain?"):
        assert extractive_answer(question, PAPERS) == "Marta Quell [1]", question


CHECKS = _passages(
    ("### Running Checks in Parallel or Consecutively\n\nWhen you run multiple checks, by default they run in "
     "parallel using threads, meaning they finish running faster and you get feedback quicker. Because the checks are "
     "running at the same time, you must make sure your checks don't depend on each other or on any shared state.\n\n"
     "If you don't want to run the checks in parallel or if you want more fine-grained control over the number of "
     "threads used, you can send the `--check-threads` flag and the number of threads you want to use to the check "
     "binary. Take a look at the following example:\n\n```console\n$ kiln check -- --check-threads=1\n```\n\n"
     "We set the number of check threads to `1`, telling the program not to use any parallelism. Running the checks "
     "using one thread will take longer than running them in parallel, but the checks won't interfere with each other.\n",
     {"source": "running-checks.md", "heading": "Controlling How Checks Are Run > Running Checks in Parallel"}),
    ("## Controlling How Checks Are Run\n\nJust as `kiln run` compiles your code and then runs the resulting binary, "
     "`kiln check` compiles your code in check mode and runs the resulting check binary. The default behavior of the "
     "binary produced by `kiln check` is to run all the checks in parallel.\n",
     {"source": "running-checks.md", "heading": "Controlling How Checks Are Run"}),
)


def test_one_at_a_time_is_answered_by_the_single_thread_not_by_running_at_the_same_time() -> None:
    """"One" reads as 1 and "at a time" is no time: before, "the checks are running at the same
    time" answered, on the strength of the word "time"."""
    got = extractive_answer("How do I run the checks one at a time?", CHECKS)
    assert got.startswith("Running the checks using one thread will take longer") and "same time" not in got
    assert "kiln check -- --check-threads=1" in got
    assert terms("one at a time") == ["1", "tim"]
    # a number word matches digits but does not scope the question: no refusal for lacking a "1"
    assert extractive_answer("Which one of the checks runs faster?", CHECKS) != REFUSAL


SETTINGS = _passages(
    ("# Settings\n\n## STORAGES\n\nDefault:\n\n```\n{\n    \"default\": {\"BACKEND\": \"files.FileSystemStorage\"},\n}"
     "\n```\n\nA dictionary containing the settings for all storages to be used with the project.\n",
     {"source": "settings.txt", "heading": "Settings"}),
    ("## PLANTER_HOSTS\n\nA list of hosts the planter connects to. The default is:\n\n```\n[\"localhost:6379\"]\n```"
     "\n\nEach entry is a host and a port.\n", {"source": "settings.txt", "heading": "PLANTER_HOSTS"}),
)


def test_a_default_introduced_by_a_colon_keeps_its_code_block() -> None:
    """reStructuredText's "Default::" and "The default is::" put the value in a literal block:
    the answer is the line and the block, never the line cut at its colon."""
    got = extractive_answer("What is the default value of STORAGES?", SETTINGS)
    assert got.startswith("STORAGES: Default: [1]") and '"BACKEND": "files.FileSystemStorage"' in got
    got = extractive_answer("What is the default of PLANTER_HOSTS?", SETTINGS)
    assert "The default is: [2]" in got and '["localhost:6379"]' in got


LINE_ENDINGS = _passages(
    ("## Line endings\n\nYou can change the way Kelp recognizes and encodes line endings using the `core.eol` "
     "command to `kelp config`. Here are the recommended values for each system.\n\nOn macOS and Linux:\n\n"
     "```\n$ kelp config --global core.eol lf\n```\n\nAnd on Windows:\n\n"
     "```\n$ kelp config --global core.eol crlf\n```\n", {"source": "setup.md", "heading": "Line endings"}),
)


def test_a_quoted_sentence_that_introduces_code_is_followed_by_its_code() -> None:
    """The best sentence names the setting; the next one quoted, "And on Windows:", introduces the
    value's command. Before, the answer ended at that colon, without the value."""
    got = extractive_answer("What value of core.eol is recommended for people working on Windows?", LINE_ENDINGS)
    assert got.rstrip("`\n ").endswith("core.eol crlf") and "And on Windows: [1]" in got


TROWEL = _passages(
    ("## Proposal\n\n### Package Content\n\nEach placeholder package fails on import, asking users to install the "
     "right package instead. For example, for the placeholder `trowel`, the message will look like:\n\n"
     "```\nImportError: Please install the maintained package with: pip install trowel-core\n```\n\n"
     "### Maintenance Cost\n\nThe placeholders need no maintenance.\n",
     {"source": "P12-package-name.md", "heading": "Package Content"}),
)


def test_a_run_of_sentences_ending_with_a_colon_keeps_the_code_it_introduces() -> None:
    """Two sentences of a paragraph quoted as one run, the second ending with a colon before a code
    block: the run leads the block as its last sentence does. Before, the run kept only the first
    sentence's lead (none) and the answer stopped at "will look like:", without the package named."""
    got = extractive_answer("I ran pip install trowel and the import fails with an ImportError. "
                            "Which package should I install instead?", TROWEL)
    assert "will look like: [1]" in got and "pip install trowel-core" in got


TRIAGE = _passages(
    ("## Table of Contents\n- [Scope](#scope)\n- [If a Ticket Has No Activity After 60 Days](#if-a-ticket-has-no-"
     "activity-after-60-days)\n- [Further Notes](#further-notes)\n", {"source": "triage.md", "heading": "Triage"}),
    ("## If a Ticket Has No Activity After 60 Days\n\nWhen a ticket goes 60 days without activity, the harbour bot "
     "adds the `lifecycle/idle` label to that ticket.\n", {"source": "triage.md", "heading": "Triage"}),
)


def test_a_table_of_contents_entry_is_never_the_answer() -> None:
    """A table of contents' entries are links to the page's headings: they name sections, and
    state nothing. Before, the list of entries was the answer, for it says every word of the
    question's heading."""
    got = extractive_answer("Which label does the harbour bot put on a ticket that has had no activity for 60 days?",
                            TRIAGE)
    assert "`lifecycle/idle`" in got and "Further Notes" not in got


RELEASES = _passages((
    "## 2.4.0 (March 3, 2025)\n\n#### Added\n\n* Support for zstd request bodies #311.\n\n#### Removed\n\n"
    "* Drop Python 3.8 support #2823.\n* Remove the deprecated `on_startup` argument #2790.\n\n"
    "## 2.3.1 (January 9, 2025)\n\n#### Fixed\n\n* Python 3.13 wheels are tagged correctly #2801.\n",
    {"source": "release-notes.md", "heading": "Release Notes"}),
)


def test_which_release_is_answered_with_the_version_heading_above_the_change() -> None:
    """Release notes name the version once, in the heading above its changes: the change is
    quoted after it. Before: "Removed: Drop Python 3.8 support", with no release."""
    got = extractive_answer("Which Kiln release dropped Python 3.8 support?", RELEASES)
    assert got == "2.4.0 (March 3, 2025): Drop Python 3.8 support #2823. [1]"
    got = extractive_answer("Which version removed the on_startup argument?", RELEASES)
    assert got.startswith("2.4.0 (March 3, 2025): Remove the deprecated `on_startup` argument") and "3.8" not in got



def test_which_version_is_answered_with_the_release_heading_though_the_sentence_holds_a_series() -> None:
    """The sentence names its series ("0.12") but not its release; the heading above it does.
    Before: the sentence alone, which holds a version, so the heading was never read."""
    notes = _passages(
        ("v0.12.2 (December 2022)\n-----------------------\n\nThis is an incremental release that is a recommended "
         "upgrade for all users. It is very likely the final release of the 0.12 series and the last version to support "
         "Python 3.7.\n\n- Added the KDE stat.\n", {"source": "whatsnew/v0.12.2.rst"}),
        ("v0.13.0 (September 2023)\n------------------------\n\nThis is a major release with a new interface.\n\n"
         "- Dropped Python 3.7.\n", {"source": "whatsnew/v0.13.0.rst"}),
    )
    got = extractive_answer("Which tidekit version was the last to support Python 3.7?", notes)
    assert "v0.12.2 (December 2022): It is very likely the final release of the 0.12 series" in got, got


POOLS = _passages(
    ("## Setting a default limit on a pool\n\nYou can set a limit on a pool instance, which results in the given "
     "`limit` being used as the default for connections made with this pool:\n\n```python\npool = kiln.Pool()  # Use a "
     "default 10 connections everywhere.\npool = kiln.Pool(limit=20)  # Use a default of 20 everywhere.\n```\n",
     {"source": "advanced/pools.md", "heading": "Pools > Setting a default limit on a pool"}),
    ("## Limits\n\nThe default limit for open connections is ten. You can change it on any pool.\n",
     {"source": "quickstart.md", "heading": "Quickstart > Limits"}),
)


def test_a_how_tos_description_line_is_not_a_value_because_its_example_holds_literals() -> None:
    """Only a short label line ("Default:", "The default is:") states the value of the code
    after it; a how-to's sentence that introduces an example does not."""
    assert extractive_answer("What is the default limit?", POOLS) == "The default limit for open connections is ten. [2]"


FILTERS = _passages((
    "## Path Parameters\n\nPaths can use URI templating style to capture path components.\n\n```python\n"
    "Route('/users/{username}', user)\n```\n\nBy default this will capture characters up to the end of the path or "
    "the next `/`.\n\nYou can use filters to change what is captured. The available filters are:\n\n"
    "* `str` returns a string, and is the default.\n* `int` returns an integer.\n* `slug` returns a lowercase slug.\n\n"
    "Path parameters are made available in the request, as the `request.path_args` dictionary.\n",
    {"source": "routing.md", "heading": "Routing > Path Parameters"}),
)


def test_which_adjective_plural_are_asks_for_the_whole_list() -> None:
    """"Which path filters are available?" asks for a list as "Which filters are available?"
    does; before, "Path parameters are made available …" answered."""
    got = extractive_answer("Which path filters are available in routes?", FILTERS)
    assert got.startswith("The available filters are: [1]\n- `str`") and got.endswith("- `slug` returns a lowercase slug.")
    # the intro says nothing beyond the question's words: its list does, and a release's list elsewhere does not win
    notes = _passages(("## 0.38.4\n\n#### Fixed\n\n* Ensure accurate `root_path` removal in `get_route_path` #2600.\n",
                       {"source": "release-notes.md", "heading": "Release Notes > 0.38.4"}),
                      ("Path parameters are made available in the request, as the `request.path_args` dictionary. "
                       "You can use filters to change what is captured. See below how to create a `datetime` filter, "
                       "and how to register it:\n\n```python\nx = 1\n```\n",
                       {"source": "routing.md", "heading": "Routing > Path Parameters"}),
                      ("The available filters are:\n\n"
                       "* `str` returns a string.\n* `int` returns an integer.\n",
                       {"source": "routing.md", "heading": "Routing > Path Parameters"}))
    got = extractive_answer("Which path filters are available in routes?", notes)
    assert got == "The available filters are: [3]\n- `str` returns a string.\n- `int` returns an integer."


TENDER = _passages(
    ("1.1 Purpose\n.1\nThe aim of this tender is to invite bids, in the form set out below, from licensed roofers "
     "for the following building:\nHARBOUR VIEW COTTAGE\nPORT ALDOUS, NOVA SCOTIA\n.2\nDrawings are listed in "
     "Section 4.", {"source": "tender.pdf", "page": "1", "start": "0"}),
    ("Roofers must hold a licence. Bids close at noon.", {"source": "rules.md", "start": "0"}),
)


def test_a_sentence_ending_with_a_colon_is_quoted_with_the_value_on_the_line_after_it() -> None:
    """"… for the following building:" says nothing alone: the line after the colon is the answer."""
    got = extractive_answer("For which building does the roofing tender invite bids?", TENDER)
    assert "following building: HARBOUR VIEW COTTAGE" in got
    assert "Drawings are listed" not in got  # a sentence of its own ends the value


PRINTS = _passages(
    ("# Knots for Sailors - 3rd Release\n\nKnots for Sailors is a guide in 12 chapters with 240 illustrations.",
     {"source": "knots/readme.md", "start": "0"}),
    ("Knots for Sailors is free to read online. Chapter 2 covers the bowline.", {"source": "knots/ch1.md", "start": "0"}),
)
TRIAL = _passages((
    "Results\n\nWe ran 100 trials per puzzle and kept the best one. Solver B solves 41.5% of the puzzles on "
    "the first try, against 12% for Solver A. With 100 trials it solves the majority of the puzzles.",
    {"source": "solver.pdf", "page": "3", "start": "0"},
))


def test_a_share_wants_a_percentage_and_a_price_an_amount_of_money() -> None:
    """"What share …" is answered by the sentence with a percentage, not by one with a count;
    "What is the price of …" is not answered by "3rd Release" or "12 chapters"."""
    assert "41.5%" in extractive_answer("What share of the puzzles does Solver B solve?", TRIAL)
    assert extractive_answer("What is the price of the printed edition of Knots for Sailors?", PRINTS) == REFUSAL
    assert "free to read" in extractive_answer("What is the price of reading Knots for Sailors online?", PRINTS)


FOREWORD = _passages(
    ("# Field Notes on Tides - 2nd Edition\n# Foreword\n\nIt is not often you are asked to introduce a book that "
     "shaped your own career, Field Notes on Tides in particular. When Ada Brightwater asked me to write this "
     "foreword, I was delighted.\n\nRead it slowly. Take your time with it.\n\nMorwenna Quill<br>\nHead of Coastal "
     "Survey<br>\nPort Aldous Harbour Trust",
     {"source": "tides/foreword.md", "start": "0", "title": "Field Notes on Tides - 2nd Edition", "heading": "Foreword"}),
    ("# Field Notes on Tides - 2nd Edition\n# Table of Contents\n\n* Chapter 1: Neap Tides\n* Chapter 2: Spring Tides",
     {"source": "tides/toc.md", "start": "0", "title": "Field Notes on Tides - 2nd Edition"}),
)


def test_who_wrote_the_foreword_is_answered_by_its_signature_not_by_a_name_in_its_text() -> None:
    """A foreword is signed at its end; the book's author named in its first paragraph did not write it."""
    got = extractive_answer("Who wrote the foreword of Field Notes on Tides?", FOREWORD)
    assert got.startswith("Morwenna Quill")
    assert "Brightwater" not in got


KETTLE = _passages(
    ("## Self-Closing Valves\n\nFor comparison, here is a standalone SCV fitted to a kettle:\n\n```\nvalve(kettle)\n```\n\n"
     "An SCV is useful when steam must escape. An SCV can be named or, much more commonly, left anonymous.",
     {"source": "valves/ch6.md", "start": "9000"}),
    ("So, in other words, the valve shuts itself once the pressure falls. This common part has a creative name: "
     "Self-Closing Valve (SCV).", {"source": "valves/ch6.md", "start": "8500"}),
)


def test_what_an_acronym_stands_for_is_the_phrase_its_letters_begin() -> None:
    """"What does SCV stand for?" wants "Self-Closing Valve", not the sentence that uses SCV most."""
    got = extractive_answer("What does SCV stand for?", KETTLE)
    assert "Self-Closing Valve (SCV)" in got
    assert "For comparison" not in got


FERRY_FARES = _passages(*(
    (f"table: Fares\nFare: {fare}\nPrice: {price}", {"source": "harbour.html", "table": "Fares", "row": str(n)})
    for n, (fare, price) in enumerate([("Adult", "£9.00"), ("Family (2 adults, 2 children)", "£25.00"),
                                       ("Dog", "£1.50")], 1)
))


def test_a_row_document_reads_as_one_row_and_the_row_named_by_the_question_answers() -> None:
    """Tables the loaders write one row per document ("table: NAME" then "column: value" lines)
    read as rows: the row whose label the question names answers, not a row that only mentions
    it, and a question none of the rows can answer is refused rather than answered with the table."""
    from ragkit.rag.extractive.text import parse_blocks

    blocks = parse_blocks("table: Fares\nFare: Adult\nPrice: £9.00")
    assert [(b.kind, b.text) for b in blocks] == [("row", "Fare: Adult; Price: £9.00")]
    assert parse_blocks("table: Fares\nA sentence that is no cell.")[-1].kind != "row"
    assert extractive_answer("How much does an adult fare cost?", FERRY_FARES).startswith(
        "Fare: Adult; Price: £9.00")
    assert extractive_answer("How long is the crossing to the island?", FERRY_FARES) == REFUSAL


# ---------------------------------------------------------------- "how many X": the number of X
SIGNALS = _passages(
    ("Comparing code books (figures 2a, 2b and 2c) show that flag-level FlagNets work better for small "
     "crews. 3 Flag-level FlagNets are reliable on large ships.", {"source": "signals.pdf", "page": "3", "start": "4000"}),
    ("The code book used in all of our ships consists of 40 flags, including 26 letter flags and 14 others.",
     {"source": "signals.pdf", "page": "2", "start": "2000"}),
)


def test_how_many_is_answered_by_the_number_of_what_it_counts() -> None:
    """"How many flags…?" wants "40 flags", not the sentence that shares most of the question's
    other words and holds some other number (a section's, a figure's)."""
    got = extractive_answer("How many flags are in the code book of the flag-level FlagNets?", SIGNALS)
    assert got.startswith("The code book used in all of our ships consists of 40 flags")
    assert counted_noun("How many parallel signal lamps does the ship use?") == "lamp"
    assert counted_noun("How long is a crossing?") == "long"
    assert counts("flag", "a set of 40 hand- written signal flags") and not counts("flag", "100 samples per flag")
    assert not counts("flag", "Lamps need 30× fewer flags")
    assert not counts("flag", "2 Flag-level Signalling") and not counts("flag", "(2b and 2c) show that flag-level")


EXCHANGE = _passages(
    ("# Overview\n\nReef is a protocol made of an ERC20 token (ReefToken), a Burner contract and a Migrator "
     "contract. The token is a fork of the ShellToken. The idea is to let users migrate ShellToken tokens to "
     "ReefToken tokens where 1 ShellToken == 50 ReefToken.", {"source": "Reef-review.pdf"}),
    ("# Findings\n\nThe admin can mint an arbitrary amount of tokens. A user who burns 10 tokens can have them "
     "minted again.", {"source": "Reef-review.pdf"}),
)


def test_a_compound_name_counts_its_last_part() -> None:
    """"How many Reef tokens …?": "50 ReefToken" counts tokens, as "10 tokens" does; a capitalised
    word alone after a number is still no count ("2 Flag-level Signalling")."""
    assert counts("token", "1 ShellToken == 50 ReefToken") and not counts("token", "2 Token Reviews")
    got = extractive_answer("If I migrate a single ShellToken through the Reef migrator, how many Reef tokens do I "
                            "get back?", EXCHANGE)
    assert "50 ReefToken" in got


READINGS = _passages(
    ("# Tide gauge\n\nPressing the gauge icon opens the tide log. Right of the gauge there is another icon, "
     "which when clicked shows you a menu which gives you access to four different types of reading: "
     "high water, low water, surge and swell.", {"source": "gauge.md"}),
    ("# Log\n\nThe log keeps 12 entries a page and 3 pages per tide.", {"source": "log.md"}),
)


def test_how_many_kinds_of_a_thing_counts_the_thing() -> None:
    """"How many kinds of reading …?" counts readings, and "four different types of reading" gives
    that count (it counted "kinds", which no sentence says, and refused)."""
    assert counted_noun("How many kinds of reading does the gauge menu offer?") == "read"
    got = extractive_answer("How many kinds of reading can I pick from the menu next to the gauge icon?", READINGS)
    assert "four different types of reading" in got, got


SCOPES = _passages(
    ("# Ledger\n\nA Ledger can act as a parent scope for another Ledger. If an entry is not found in the active "
     "scope, it looks in the parent Ledger. Importantly, there is no limit to how many Ledgers can be in this "
     "chain, and a Ledger never changes entries of its parent scopes.", {"source": "Ledger.xml"}),
    ("# Ledger > set_parent\n\nAssigns the parent scope of this Ledger.", {"source": "Ledger.xml"}),
)


def test_a_count_without_a_bound_answers_how_many() -> None:
    """"How many Ledgers can be chained …?": "there is no limit to how many Ledgers can be in this
    chain" gives the count (it holds no number and was refused)."""
    got = extractive_answer("How many Ledgers can be chained together as parent scopes?", SCOPES)
    assert "there is no limit to how many Ledgers" in got, got


GATHERINGS = _passages((
    "# Our Gatherings\n\n## Summer camps\n\nThe whole crew gathers at the summer camp twice a year. "
    "Newcomers meet their mentor at the 1-month, 3-month and 1-year marks.\n\n"
    "Camps are 5 days long. Most people arrive on a Sunday.", {"source": "gatherings.md"}),)


def test_how_long_is_answered_by_the_measure_the_adjective_closes() -> None:
    """"How long is a crew summer camp?": "Camps are 5 days long", not "twice a year" (a
    frequency) nor the marks of a newcomer's first year."""
    got = extractive_answer("How long is a crew summer camp?", GATHERINGS)
    assert got.startswith("Camps are 5 days long")


# ---------------------------------------------------------------- the answer's passage must hold the question
GAUGES = _passages(
    ("The first tide gauge of the bay was built by Ada Quill and Tom Hale (2005), who used a float in a well. "
     "A similar float was later adopted by Quill and Hale (2011).", {"source": "gauges.pdf", "page": "2", "start": "3000"}),
    ("Harbour records list every gauge reading since 1990. Each reading is checked by hand.",
     {"source": "records.pdf", "page": "1", "start": "0"}),
    ("Harbour pilots guide the ships in at dawn; medals for pilots are cast in bronze.",
     {"source": "committee.md"}),
)


def test_a_passage_on_the_topic_that_lacks_what_is_asked_gives_no_answer() -> None:
    """"In which year did Ada Quill receive the Harbour Medal?": a passage names her and gives
    years, but says nothing of a medal or of receiving one (another document speaks of medals,
    not of her): the question is refused, not answered with a year of something else."""
    assert extractive_answer("In which year did Ada Quill receive the Harbour Medal?", GAUGES) == REFUSAL
    assert "2005" in extractive_answer("In which year did Ada Quill build the first tide gauge?", GAUGES)


# ---------------------------------------------------------------- a row document's label is not its text
GAUGE_PAPER = _passages(
    ("table: Learning Tide Patterns with Float Gauges, page 4, table 2\ntions. We use a local estimator with a "
     "bandwidth chosen by cross-validation. This step serves: gauge readings).\n(Bje",
     {"source": "gauges.pdf", "page": "4", "table": "Learning Tide Patterns with Float Gauges, page 4, table 2"}),
    ("Moreover, results on the HARBOUR-7 dataset show that float gauges track the tide within 2 cm.",
     {"source": "gauges.pdf", "page": "5", "start": "8000"}),
)


def test_the_label_of_a_table_row_that_is_not_cells_is_never_the_answer() -> None:
    """A PDF's table row whose cells are loose text keeps the loader's ``table: NAME`` label, and
    a table without a caption is named after the paper's title: that label matches every question
    about the paper, but says nothing; the sentence naming the dataset answers."""
    got = extractive_answer("On which dataset are the float gauges for learning tide patterns evaluated?", GAUGE_PAPER)
    assert "HARBOUR-7" in got and "table:" not in got


def test_a_question_that_asks_two_things_is_answered_from_two_documents() -> None:
    from ragkit.rag.passages import Passage

    passages = [
        Passage(1, "The %timeit magic measures the execution time of a single statement.", {"source": "timing.md"}),
        Passage(2, "Shell snippets in notebooks are wrapped in markdown cells with a bash fence.", {"source": "shell.md"}),
    ]
    answer = extractive_answer("Which magic measures the execution time of a statement, and how are shell "
                               "snippets wrapped in markdown cells?", passages)
    assert answer != REFUSAL and "%timeit" in answer


def test_a_leading_clause_is_not_a_second_question() -> None:
    from ragkit.rag.extractive.engine import _COMPOUND

    assert _COMPOUND.search("Which magic times a statement, and how are snippets wrapped?")
    assert not _COMPOUND.search("When the tide is high, what does the keeper log?")


def test_an_irregular_verb_matches_its_other_forms() -> None:
    """"When did the keeper fall?" is answered by "the keeper fell": a suffix stripper does not
    see that they are one verb."""
    assert terms("The keeper fell") == terms("the keeper fall") and terms("written") == terms("write")
    passages = _passages(("# The Gull Rock light\n\nThe keeper climbed the tower every evening to wind the clockwork. "
                          "In the storm of 1887 the keeper fell from the gallery ladder. "
                          "The tower was painted white in 1890.", {"source": "gull-rock.md"}))
    got = extractive_answer("In which storm did the keeper fall from the ladder?", passages)
    assert "1887" in got, got


def test_a_sentence_that_points_back_brings_the_one_it_points_at() -> None:
    """"This is the recommended method …" does not say what the method is: the sentence before it
    in its paragraph does, and is quoted with it."""
    passages = _passages((
        "## Capturing the log\n\nThe logger can write to a file or to the screen. "
        "Another way of capturing records is to give the logger a MemoryBuffer. "
        "This is the recommended method if you are checking records in unit tests. Here is an example.",
        {"source": "logging.md"}))
    got = extractive_answer("What is the recommended way to check records in unit tests?", passages)
    assert "MemoryBuffer" in got and got.index("MemoryBuffer") < got.index("This is the recommended"), got


def test_a_snake_case_identifier_is_a_term_of_its_own() -> None:
    """``NO_COLOR``'s "no" is a stopword; the identifier whole is still a term, which only a
    passage naming it holds."""
    assert "no_color" in terms("If I set NO_COLOR, is bold kept?") and "color" in terms("NO_COLOR")
    passages = _passages(
        ("Colour can be turned off with the color option, and bold text stays bold everywhere.", {"source": "a.md"}),
        ("When NO_COLOR is set the harbour lamps show no color, only their shapes.", {"source": "b.md"}))
    assert "[2]" in extractive_answer("What happens when NO_COLOR is set?", passages)


def test_a_length_of_time_in_words_answers_how_long() -> None:
    """"How long …?" wants a number; "waiting a week" gives one in words."""
    assert has_answer_type("number", "Please wait a week before you merge.", frozenset())
    passages = _passages(("## Merging\n\nReviews happen in the open and every reviewer leaves comments on the change. "
                          "In particular: **if you can merge, please do not merge a change without\n"
                          "waiting a week for everybody to leave feedback**.", {"source": "CONTRIBUTING.md"}))
    got = extractive_answer("How long should a change stay open before someone merges it?", passages)
    assert "a week" in got and "**" not in got, got


def test_reference_style_links_read_as_their_text() -> None:
    passages = _passages(("The [`tidecalc` crate on crates.io][tidecalc] computes the tides of any harbour.\n\n"
                          "[tidecalc]: https://crates.io/crates/tidecalc", {"source": "ffi.md"}))
    got = extractive_answer("Which crate computes the tides of a harbour?", passages)
    assert "`tidecalc` crate on crates.io computes" in got and "][" not in got, got


def test_a_numbered_section_heading_in_pdf_text_is_not_a_list_item() -> None:
    """A PDF's text lays out "2. Tide gauges" and then its section's sentences with no blank line:
    the numbered line is the section's heading, so the answer is the sentence that answers, not
    the whole section read as one list item."""
    text = ("Harbour Handbook\n2. Tide gauges\nThe harbour has two gauges. The north gauge is read at noon.\n"
            "The south gauge is read every six hours by the duty officer.\nBoth readings go in the log.")
    got = extractive_answer("How often is the south gauge read?", _passages((text, {"source": "handbook.pdf", "page": "2"})))
    assert got == "The south gauge is read every six hours by the duty officer. [1]", got


SPOOL = _passages((
    "## Spool folder\n\nThe print daemon keeps waiting jobs in its spool folder, which it cleans every night. "
    "It is important for speed that the spool folder sits on the same disk as the printer queue. "
    "Otherwise, the daemon cannot move a job into the queue in one step and has to copy every file instead.\n\n"
    "The spool folder is set with `spool_dir` in the daemon's settings.",
    {"source": "spool.md", "start": "0"},
))


def test_a_why_question_gets_the_sentence_that_gives_the_reason() -> None:
    """"Why …?" answered by a sentence that only says it matters: the next sentence of its
    paragraph, opening with "Otherwise" (or "This is because", "That way" …), gives the reason."""
    got = extractive_answer("Why should the spool folder be on the same disk as the printer queue?", SPOOL)
    assert "same disk" in got and "has to copy every file" in got, got
    # not for a question that asks for something else
    where = extractive_answer("Which disk should the spool folder be on?", SPOOL)
    assert "same disk" in where and "copy every file" not in where, where


def test_a_surname_alone_that_did_the_deed_answers_who_first_did_it() -> None:
    """"Lumsdaine constructed the Hopf fibration": a scholar's surname alone, as the subject of
    the deed asked about, is a person; a word the passages write in lower case is not ("This
    showed …")."""
    notes = [Passage(1, "## Notes\n\nThe fibration of the sphere was studied for a long time. Marrow constructed the "
                        "tidal fibration in type theory. Quill proved that its total space is a sphere.",
                     {"source": "notes.tex", "heading": "Notes", "start": "0"})]
    answer = extractive_answer("Who first built the tidal fibration in type theory?", notes, max_sentences=1)
    assert "Marrow" in answer and "[1]" in answer
    this = [Passage(1, "## Notes\n\nThis constructed the tidal fibration in type theory, and this is all.",
                    {"source": "notes.tex", "heading": "Notes", "start": "0"})]
    assert "does not contain" in extractive_answer("Who first built the tidal fibration in type theory?", this)


BACKENDS = _passages(
    ("# Sign extension error in the Sparc64 FFI\n\nNumeric arguments of FFI calls on the Sparc64 backend may result in "
     "incorrect runtime values.\n\nFor the most part, this bug only causes availability issues.",
     {"source": "advisories/KSEC-2031-0008.md", "heading": "Sign extension error in the Sparc64 FFI"}),
    ("# Sign extension bug in the RISC-V compiler\n\nArithmetic operations may result in incorrect runtime results on "
     "the native riscv64 backend.",
     {"source": "advisories/KSEC-2031-0007.md", "heading": "Sign extension bug in the RISC-V compiler"}),
    ("# Command injection on Windows\n\nThe process library did not escape arguments of batch files, so a caller "
     "could run other commands.", {"source": "advisories/KSEC-2031-0003.md", "heading": "Command injection"}),
    ("# Stored XSS in the package server\n\nUploaded documentation was served on the main domain, where its scripts "
     "could read a user's session.", {"source": "advisories/KSEC-2031-0004.md", "heading": "Stored XSS"}),
)


def test_a_question_for_several_things_quotes_each_parallel_document() -> None:
    """"Which two backends …?" asks for two things, which two advisories name one each: the second
    advisory's sentence matches the question by its heading ("Sign extension bug in the RISC-V compiler") more than by
    its own words, and is quoted beside the first. Before, a further sentence had to match on its
    own words as much as the first, and only one backend was named."""
    got = extractive_answer("Which two compiler backends had sign extension bugs that could give wrong runtime values?",
                            BACKENDS)
    assert "Sparc64" in got and "riscv64" in got, got


BYLAWS = _passages(
    ("## Article I: Name\n\nThe name of this organization shall be the Harbour Area Chess Players Club (henceforth "
     "known as HACPC).\n\n## Article II: Officers\n\nThe officers of HACPC are a President, a Treasurer and a "
     "Secretary, elected each spring by the members present.", {"source": "bylaws.docx", "start": "0"}),
)


def test_an_organisation_s_name_is_no_person_s() -> None:
    """Capitalised words that a designator ends ("… Chess Players Club") name a group, not the
    person a "Who …?" question asks for: the bylaws name no one who holds an office."""
    assert extractive_answer("Who is currently serving as the club's Treasurer?", BYLAWS) == REFUSAL
    assert not has_answer_type("person", "It was funded by the Ada Lovelace Institute.", frozenset({"who"}))
    assert has_answer_type("person", "The talk was given by Ada Lovelace at the Royal Society.", frozenset({"who"}))
