"""An answer says what was asked: a question that names the thing it asks for ("Which *university*
…?", "How many stock *options* …?", "What is the maximum *size* …?") is refused when the answer,
its section and its neighbours never say that noun (and a "Which …?" answer names no thing of its
own, and a qualifier written with hyphens, "USB-to-serial", is said by its words apart); "What is
the *cause*?" asks why, and the reason answers it; the quantity a number question asks for
("What *temperature* range …?") still counts as a word; a how-to answer reads on to the sentence
that writes the code to use. Each document is written for the test, in the shape of a page where
the answerer went wrong."""

from __future__ import annotations

import pytest

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.values import asked_noun
from ragkit.rag.passages import Passage

from .test_extractive_said_kind import _passages

HANDBOOK = _passages(
    ("## Anniversaries\n\nWhen you reach your fifth year with the crew, you receive an extra 12 paid "
     "days off. New hires start with 20 paid days off a year.", "benefits.md"),
    ("## Profit sharing\n\nEvery employee shares 5% of the yearly profit, paid out in March.", "benefits.md"),
)

PAPER = _passages(
    ("Abstract. The author of this survey has been affiliated with poetry juries for a decade. Recent "
     "sequence models can be tuned to write poems; this survey gives an overview of how such poems are "
     "judged.", "poem-survey.pdf"),
)

GUIDE = _passages(
    ("## Testing errors\n\nBy default the test client raises every exception of the application. "
     "Sometimes you may want to check the body of a 500 response instead of letting the client raise "
     "the error. In that case create the client with `Client(app, reraise=False)`.\n\nThe client also "
     "keeps cookies between requests.", "testing.md"),
)

CATALOG = _passages(
    ("# Harbour\n\nThe Harbour service stores its catalog in PostgreSQL 15. It requires Python 3.10 or "
     "newer. It was first released in 2019.", "harbour.md"),
    ("## Dependencies\n\n- `skiff` - Required for signed session cookies.", "install.md"),
    ("## Pricing\n\nThe guide is free to read online.", "pricing.md"),
)


@pytest.mark.parametrize(("question", "noun"), [
    ("Which university was the author affiliated with?", "university"),
    ("What licence is the reference implementation released under?", "licence"),
    ("What is the maximum size in megabytes of an upload?", "size"),
    ("What is the telephone number of the health bureau?", "telephone"),
    ("What is the largest number of pages it can read?", "pages"),
    ("How many stock options does a new hire receive?", "options"),
    ("How much memory does each task use?", "memory"),
    ("What was the total paid on the receipt?", "total"),
    ("What was the client-reported issue listed in the v5.2 audit about?", "issue"),  # a regular participle
    ("What is the maximum speed allowed on the quay?", "speed"),  # a noun that ends in "-ed"
    ("What is the salary floor at the company?", "floor"),
    ("How long a sabbatical does the crew give after five years of service?", "sabbatical"),
    ("How much per milestone did the crew ask to be paid?", ""),  # a rate: the amount is asked for
    ("How much faster did loading get in the benchmarks?", ""),  # a comparative: the difference is asked for
    ("How many more workers do I need?", "workers"),
    ("What is the name of the framework?", ""),
    ("What does the scheduler do?", ""),
    ("How do I install it?", ""),
])
def test_the_noun_a_question_asks_for(question: str, noun: str) -> None:
    assert asked_noun(question) == noun


def test_a_number_of_another_thing_is_no_answer_to_how_many_of_this() -> None:
    """"How many stock options …?" over a handbook that counts days off, never options: before,
    "an extra 12 paid days off" was the answer (a number, and "new hires" matched)."""
    assert extractive_answer("How many stock options does a new hire receive?", HANDBOOK) == REFUSAL
    assert "20 paid days" in extractive_answer("How many days off does a new hire start with?", HANDBOOK)


LEAVE = _passages(
    ("## Leave of absence\n\n### In short\n\n- Leave duration:\n  - Paid leave: we give eligible teammates up to 4 "
     "weeks of paid leave.\n  - Unpaid leave: following 4 weeks of paid leave, teammates are eligible for eight weeks "
     "of unpaid leave.\n  - In total, a teammate can take up to 12 weeks of leave per year.", "crew/leave.md"),
    ("## Anniversaries\n\nAfter five years of service, Harbourcorp sends each teammate a brass compass.",
     "crew/gifts.md"),
)


def test_how_long_a_thing_no_passage_names_is_refused() -> None:
    """"How long a sabbatical …?" over a handbook that never says "sabbatical"; "after five years
    of service" is a condition, not a list asked for. Before: the anniversary gift."""
    question = "How long a sabbatical does Harbourcorp give teammates after five years of service?"
    assert extractive_answer(question, LEAVE) == REFUSAL


def test_which_noun_is_refused_when_the_answer_says_neither_it_nor_a_name() -> None:
    """"Which university …?" over a paper whose retrieved text is its abstract: before, the
    abstract's sentence about the survey was the answer."""
    assert extractive_answer("Which university was the author of the poem survey affiliated with?", PAPER) == REFUSAL


@pytest.mark.parametrize(("question", "expected"), [
    ("Which database does Harbour use for its catalog?", "PostgreSQL"),  # a name answers "which database"
    ("Which package is required for signed session cookies?", "skiff"),  # a literal answers "which package"
    ("What Python version does Harbour need?", "3.10"),  # a version answers "what version"
    ("In which year was Harbour first released?", "2019"),  # a date answers "which year"
    ("What is the price of reading the guide online?", "free"),  # a price may be "free"
])
def test_an_answer_of_the_asked_kind_need_not_repeat_the_noun(question: str, expected: str) -> None:
    assert expected in extractive_answer(question, CATALOG)


def test_a_howto_answer_reads_on_to_the_code_to_use() -> None:
    """The sentence that matches restates the situation ("Sometimes you may want to check …"), the
    next one says what to write: before, only the first was quoted."""
    answer = extractive_answer("How can a test check the body of a 500 response instead of the client raising "
                               "the error?", GUIDE)
    assert "`Client(app, reraise=False)`" in answer
    assert "cookies" not in answer


RELEASE_NOTES = _passages(
    ("## Reef toolchain\n\nThe 4.8.0 version of the Reef toolchain shipped in March 2013 and includes a "
     "nearly-Kelp 1.1 compiler. Its first release followed Kelp's schedule.", "kelp1.1.md"),
    ("## Tide tables\n\nKelp 1.18 includes an implementation of tide tables as described by the tide "
     "proposal. Tide tables are the largest change to the language.", "kelp1.18.md"),
    ("## Compiler\n\nBecause of changes related to tide tables, some error messages of the compiler now "
     "read differently. Tide tables also slow the build a little.", "kelp1.18.md"),
    ("## Language\n\nA tide table may now be passed to another tide table. Inference of tide tables "
     "improved.", "kelp1.21.md"),
)


def test_which_release_first_shipped_a_feature_is_the_release_that_includes_it() -> None:
    """Release notes say "Kelp 1.18 includes tide tables", not that 1.18 "first shipped" them: the
    words of a release's arrival weigh less than the feature's. Before, another tool's "version …
    shipped … first release" sentence was the answer (every note says "tide tables", so the rare
    "shipped" outweighed them)."""
    answer = extractive_answer("Which Kelp release first shipped tide tables?", RELEASE_NOTES)
    assert answer.startswith("Kelp 1.18 includes")


ENCODING = _passages(
    ("## Output encoding\n\nOn Windows, a program whose output is redirected to a file may raise "
     "UnicodeEncodeError for characters the console code page lacks.\n\nTurn on Python's UTF-8 mode "
     "before running it:\n\n```\nset PYTHONUTF8=1\n```\n", "encoding.md"),
)


def test_a_question_after_a_statement_is_read_from_the_sentence_that_asks() -> None:
    """"My tool raises … on Windows. How do I fix it?": the statement says what the question is
    about, the last sentence what it asks for (a how-to: the command). Before, the question was
    read as a statement: no how-to, so no command."""
    from ragkit.rag.extractive.query import asked_part, read_question

    question = ("My tool raises UnicodeEncodeError on Windows when its output is redirected to a file. "
                "How do I fix it?")
    assert asked_part(question) == "How do I fix it?"
    assert read_question(question).howto
    assert asked_part("How did the court decide Knowles v. Mirzayance?").startswith("How did")
    # a short phrase and its comma may come before the question word
    assert asked_part("Our proxy cuts idle connections. By default, how often does Tern send a ping?") == (
        "By default, how often does Tern send a ping?")
    assert asked_part("It broke. In practice, which flag do people set?") == "In practice, which flag do people set?"
    assert asked_part("It broke. Sadly, the fix is unknown?") == "It broke. Sadly, the fix is unknown?"
    # a preposition may come before the question word ("Under which …?", "After how long …?")
    assert asked_part("A script opens our server. Under which query parameter does the token go?") == (
        "Under which query parameter does the token go?")
    assert asked_part("Jobs hang. After how long is a job force-quit?") == "After how long is a job force-quit?"
    # a statement may end with an identifier in capitals; an initial or an abbreviation ends none
    assert asked_part("Install fails with ERR_REEL_TARBALL_INTEGRITY. What command should we run?") == (
        "What command should we run?")
    assert asked_part("The relay drops packets over the VPN. Which port is it?") == "Which port is it?"
    assert asked_part("Which novel did J. R. Tolkien write first?").startswith("Which novel")
    assert asked_part("Our crew joined the U.S. Navy. Which rank is highest?") == "Which rank is highest?"
    assert "PYTHONUTF8=1" in extractive_answer(question, ENCODING)


LOCALE = _passages(
    ("## Force the locale\n\nTo always print English on the command line, filter the active locale.\n\n"
     "Given a `force-locale.php` file:\n\n    <?php\n    Tool::add_hook( 'pre_option_LANG', function() {\n"
     "\t    return 'en_US';\n    });\n\nLoad it with:\n\n    tool --require=force-locale.php\n", "locale.md"),
)


def test_an_indented_code_block_is_code() -> None:
    """Markdown's indented code blocks (four spaces after a blank line) are code, so a how-to's
    answer brings its command; before, each line was a sentence of prose and the answer stopped
    at the description. An admonition's or an item's indented paragraph stays prose."""
    from ragkit.rag.extractive.text import parse_blocks

    kinds = [(b.kind, b.text.splitlines()[0]) for b in parse_blocks(LOCALE[0].text)]
    assert ("code", "<?php") in kinds and ("code", "tool --require=force-locale.php") in kinds
    answer = extractive_answer("How can I force the tool to print English on the command line?", LOCALE)
    assert "pre_option_LANG" in answer
    notes = parse_blocks("!!! note\n\n    If you want the client to run the handler,\n    use it as a context "
                         "manager.\n\n- An item\n\n    More text for the item, which is a sentence.\n")
    assert [b.kind for b in notes] == ["prose", "item", "prose"] and notes[0].text.startswith("If you want")


CURFEW = _passages(
    ("## 9.10 Harbour curfew\n\n1. _(a)_ No child, unless accompanied by an adult, shall remain on any quay\n"
     "during the following hours:\n\n    1. _(1)_ A child under the age of sixteen between 11:00 p.m. and 6:00 a.m.;"
     "\n\n    2. _(2)_ A child the age of sixteen or seventeen, between 1:00 a.m. and 6:00\n    a.m.\n\n"
     "2. _(b)_ A child who violates subsection (a) is deemed unruly.\n", "harbour-code.md"),
)


def test_a_list_indented_under_an_item_is_its_nested_list_not_code() -> None:
    """Four spaces under a list item are the item's content (CommonMark, and Python-Markdown's
    four-space rule), so a nested list of hours is items, not a code block; before, the answer to
    the curfew was the sentence "during the following hours:" and the hours as a code block, and
    a question on one age group was refused. Code under an item needs four columns more."""
    from ragkit.rag.extractive.text import parse_blocks

    blocks = parse_blocks(CURFEW[0].text)
    assert [b.kind for b in blocks if b.kind != "prose"] == ["heading", "item", "item", "item", "item"]
    assert blocks[3].text == "(2) A child the age of sixteen or seventeen, between 1:00 a.m. and 6:00 a.m."
    answer = extractive_answer("From what time does the harbour curfew start for sixteen- and seventeen-year-olds?", CURFEW)
    assert "1:00 a.m." in answer and "```" not in answer
    nested = parse_blocks("- Add the key:\n\n        key: 1\n        other: 2\n")
    assert [b.kind for b in nested] == ["item", "code"]  # eight spaces: code inside the item


GAUGE_RELEASE = _passages(
    ("# Release 3.0 (2019-05-14)\n\nThis release has the following new features:\n\n"
     "  - It introduces a new command named `gauge`, which replaces the `tide-*` commands. It has the\n"
     "    following major features:\n\n      - It reads every buoy with one syntax:\n\n"
     "            gauge read --buoy=north --since=2019-05-01\n\n        By contrast, `tide-read` only took one port.\n\n"
     "      - It is self-documenting.\n", "rl-3.0.md"),
)


def test_an_item_that_leads_its_nested_items_says_its_section() -> None:
    """A list nested under an item (six spaces under "  - ", CommonMark's item content) was read
    as code, and code nested deeper (twelve spaces) inside it too; read as items, the item that
    leads them is quoted with its section heading, as a single item is: the release's date."""
    from ragkit.rag.extractive.text import parse_blocks

    kinds = [(b.kind, b.text.split()[0]) for b in parse_blocks(GAUGE_RELEASE[0].text) if b.text]
    assert ("item", "It") in kinds and ("code", "gauge") in kinds and ("prose", "By") in kinds
    answer = extractive_answer("On what date was the release that introduced the new `gauge` command published?",
                               GAUGE_RELEASE)
    assert answer.startswith("Release 3.0 (2019-05-14): It introduces a new command")


CACHE = _passages(
    ("## HTTP caching\n\nThe tool keeps a cache of the pages it downloads from the index.\n\n"
     "Changed in version 23.3.\n\nThe HTTP cache now lives in the `web-v2` folder of the cache "
     "directory; the old folder is no longer read.", "caching.md"),
)


def test_a_version_note_alone_is_no_answer() -> None:
    """"Changed in version 23.3." dates the sentence after it and says nothing itself: before, it
    was the answer to a question that names the version (its number counts in full)."""
    answer = extractive_answer("What is the name of the folder that holds the HTTP cache since version 23.3?", CACHE)
    assert "web-v2" in answer and not answer.startswith("Changed in version")


SCHEMES = _passages(
    ("## Version control\n\nThe tool installs from several version control systems.\n\nWarning:\n"
     "The use of the `reed+plain` and `reed+http` schemes is discouraged.\nThe first uses the Reed "
     "protocol, which lacks authentication, and the second is insecure due to lack of encryption.\n",
     "vcs.md"),
)


def test_a_why_answer_reads_on_to_the_sentence_that_gives_the_reason() -> None:
    """The sentence that matches says what is discouraged; the next one why ("due to"), without
    opening as a consequence ("This is because …"). Before, the answer stopped at the first."""
    answer = extractive_answer("Why is installing from reed+plain URLs discouraged?", SCHEMES)
    assert "lacks authentication" in answer


MODELS = _passages(
    ("## Results\n\nGloVe outperforms the other word vectors on analogies; ELMo adds 4.7 points on "
     "question answering, and ELMo helps most on small training sets.", "results.pdf"),
    ("## Models\n\nOur vectors are trained on word co-occurrence counts: we call the model GloVe, for Global "
     "Vectors.\n\nOur representations are called ELMo (Embeddings from Language Models).", "paper.pdf"),
)


@pytest.mark.parametrize(("question", "expected"), [
    ("What does GloVe stand for?", "Global Vectors"),
    ("What does ELMo stand for?", "Embeddings from Language Models"),
])
def test_an_acronyms_lower_case_letters_are_inside_its_words(question: str, expected: str) -> None:
    """"ELMo" spells E, L, M: its "o" is inside "Models"; "from" joins two words as "of" does.
    Before, the expansion was looked for as five and as four initials, and found in no sentence."""
    answer = extractive_answer(question, MODELS)
    assert expected in answer.split(" [")[0]  # the first sentence quoted spells it out


FLOATS = _passages(
    ("## Floating point\n\nFloats are represented as double precision using the native CPU "
     "representation.\n\n> 17 digits of precision  \n> Exponent from -308 to 308\n", "numbers.md"),
)


def test_how_many_digits_of_precision_counts_digits_not_a_percentage() -> None:
    """"How many digits of precision …?" counts digits; "precision" asks for a percentage only when
    the question asks for it ("What precision does the classifier reach?"). Before, it was refused:
    no passage gives a percentage."""
    assert "17 digits" in extractive_answer("How many digits of precision does a float give?", FLOATS)


OPTIONS = _passages(
    ("# Options\n\nUse the following options to configure Skiff from the command line.", "options.md"),
    ("## Limits\n\n* `--max-jobs <int>` - Maximum number of jobs to run at once. Default: 8.\n"
     "* `--queue <int>` - Maximum number of waiting jobs to hold in the queue. Relevant under heavy load. "
     "Default: 500.", "options.md"),
    ("## Shares\n\nEvery employee of the Skiff team holds 10 bonus shares.", "team.md"),
)


def test_a_value_of_the_named_thing_answers_for_its_attribute_noun() -> None:
    """"What is the default *size* of the job queue?": the option's line says "queue", "jobs" and
    "Default: 500", never "size", and the document says Skiff. Before, it was refused for lacking
    the noun; a number of another thing still is ("bonus shares" for stock options)."""
    answer = extractive_answer("What is the default size of the job queue in Skiff?", OPTIONS)
    assert "500" in answer
    assert extractive_answer("How many stock options does the Skiff team hold?", OPTIONS) == REFUSAL



SANITIZING = _passages(
    ("## Output encoding\n\nTreat every value from a user as untrusted. The secure coding guide recommends "
     "`shineclean` for sanitizing untrusted HTML input in the browser.", "xss.md"),
    ("## Templates\n\nAuto-escaping templates encode untrusted values before they reach the page.", "xss.md"),
)


def test_a_thing_of_another_names_kind_does_not_answer_which_named_noun() -> None:
    from ragkit.rag.extractive.values import asked_qualifier

    assert asked_qualifier("Which Rust crate does the guide recommend?") == "Rust"
    assert asked_qualifier("Which CLI flag does it need?") == ""  # an acronym qualifies no name
    assert asked_qualifier("Which crate does the guide recommend?") == ""
    # a browser library, from a page that never says Rust, is no Rust crate
    question = "Which Rust crate does the secure coding guide recommend for sanitizing untrusted HTML input?"
    assert extractive_answer(question, SANITIZING, max_sentences=1) == REFUSAL
    # without the name, the library the page recommends answers
    answer = extractive_answer("Which library does the secure coding guide recommend for sanitizing untrusted HTML input?",
                               SANITIZING, max_sentences=1)
    assert "shineclean" in answer
    rust = _passages(("## Rust services\n\nThe secure coding guide recommends the `scour` crate for sanitizing "
                      "untrusted HTML input.", "rust.md"))
    assert "scour" in extractive_answer(question, rust, max_sentences=1)


def test_the_sentence_that_says_the_noun_asked_for_goes_first_when_it_scores_close() -> None:
    """"What minimum age …?": the sentence that says an age, not the next one, which shares more of
    the question's words ("require", "the former") but gives a span of service."""
    passages = [Passage(1, "# Tern charter: wardens\n\nThe qualifications proposed for wardens, as distinguished from "
                           "those of stewards, consist in a more advanced age and a longer period of service. A warden "
                           "must be forty years of age at least; as a steward must be thirty. And the former must have "
                           "served the guild nine years; as five years are required of the latter.",
                        {"source": "charter/wardens.md"})]
    answer = extractive_answer("What minimum age does the Tern charter require of a warden?", passages)
    assert answer.startswith("A warden must be forty years of age at least")



def test_makes_is_no_word_a_sentence_must_share() -> None:
    # "make" was a function word and "makes" was not: "Which company makes X?" wanted "makes" said
    # ("made" stays a word: it names things, "Ledgers Made Plain")
    passages = _passages(
        ("## Kelp monitors\n\nKelp is a bedside monitoring system provided by Tidewell which archived readings "
         "for the harbour clinic.", "sources/kelp.md"),
        ("## Brine\n\nBrine replaced the older system in 2008. The company behind it keeps the schema stable.",
         "sources/brine.md"),
        ("## Access\n\nYour company email address is helpful but not required. Readings are shifted in time.",
         "access.md"),
        ("## Tables\n\nThe readings table holds one row per reading; the company column is left empty.",
         "tables.md"),
    )
    assert "Tidewell" in extractive_answer("Which company makes Kelp?", passages)


def test_a_standard_or_requirement_is_stated_by_what_one_must_do() -> None:
    passages = _passages(
        ("## Skippers and eyesight\n\n**Vision.** Skippers **MUST** be able to read a vessel's name board from a "
         "distance of 20 metres. The harbour master may ask for a sight test.", "rules/skippers.md"),
        ("## Lights\n\nLights MUST be shown between sunset and sunrise.", "rules/lights.md"),
        ("## Anchoring\n\nDo not anchor in the fairway. Skippers should keep a lookout.", "rules/anchoring.md"),
    )
    assert "20 metres" in extractive_answer("What is the eyesight standard for skippers?", passages)

# asked noun: a "what is the cause?" question is a why question
BOARD = [
    Passage(1, "Some of the Wren 2 boards were accidentally flashed with the Finch loader. It works, but has a longer "
               "delay (9-12 seconds) after a reset because the Finch loader waits for an upload first. You can tell "
               "a Wren 2 has the Finch loader when its status LED flashes four times after a reset.",
            {"source": "wren-slow-start.md", "title": "The Wren 2 takes long to start"}),
    Passage(2, "## Status LED\n\nThe Wren 2 status LED glows green while the board is powered.",
            {"source": "wren-leds.md", "heading": "Status LED"}),
]


def test_what_is_the_cause_is_answered_by_the_reason_the_passage_gives() -> None:
    answer = extractive_answer("My Wren 2 takes 9 to 12 seconds to start after a reset and the status LED flashes "
                               "four times. What is the cause?", BOARD)
    assert "Finch loader" in answer, answer



# a "Which X-to-Y chip" qualifier is said by "X to Y"
BRIDGE = [
    Passage(1, "## Echo test\n\nThe echo test sends bytes from RX to TX. This test will always fail for the QX7 "
               "USB to serial chip used on some clone boards.", {"source": "echo-test.md", "heading": "Echo test"}),
]


def test_a_hyphenated_qualifier_is_said_by_its_words_apart() -> None:
    answer = extractive_answer("The echo test always fails on my clone board. Which USB-to-serial chip is known to "
                               "make that test fail every time?", BRIDGE)
    assert "QX7" in answer, answer



# the quantity noun a number question asks with still counts
SHED = [
    Passage(1, "## Sharing boards\n\nIf you intend to share your Kestrel board with other people, we recommend a "
               "220 nm ultraviolet cabinet for safe cleaning of Kestrel boards.",
            {"source": "cleaning.md", "heading": "Sharing boards"}),
    Passage(2, "## Recommended temperature range\n\nOther parts of a circuit may damage a Kestrel board even inside the operating "
               "range.\n\n**Recommended temperature range: -20°C to +60°C.**",
            {"source": "temperature.md", "heading": "Recommended temperature range"}),
]


def test_the_quantity_noun_of_a_number_question_still_counts() -> None:
    answer = extractive_answer("I want to leave a Kestrel running in a cold shed. What temperature range does "
                               "Kestrel recommend for running its boards safely?", SHED)
    assert "-20°C" in answer, answer


def test_a_modal_verb_ends_the_noun_a_which_question_asks_for() -> None:
    assert asked_noun("Which language may have been the first to write binary numbers with a 0b prefix?") == "language"
    assert asked_noun("Which port might the relay use?") == "port"
    assert asked_noun("Which release in May added the flag?") != "in"  # "May" the month is no verb


GRANT = _passages(
    ("# Tide sensors for the harbour\n\n## Development roadmap\n\n- Port the tide model to the new runtime "
     "(weeks 0-4).\n- Add the `tide-sensors` integration to the harbour node (weeks 4-8).\n\nIdeally, our team "
     "receives part payment at the end of each milestone: $1800. Total cost: $7200.", "proposals/tide_sensors.md"),
)


def test_how_much_per_a_thing_asks_the_amount_not_the_thing() -> None:
    """"How much per milestone …?" asks an amount paid at each milestone: the sentence that gives
    it need not say "milestone" as a noun of its own. Before, "milestone" was taken for the noun
    asked for, and an answer that did not repeat it was refused."""
    answer = extractive_answer("How much per milestone did the team want to be paid for bringing tide sensors "
                               "integration to the harbour node?", GRANT)
    assert "$1800" in answer


#: a guide whose introduction restates the question's scene, and whose bullet gives the reason
_REHEARSAL = ("# Rehearsal session\n\n## Introduction\n\nThis guide helps you set up made-up material to show your "
              "clients. The rehearsal session includes two calls:\n\n- First, a shared mail thread will be written for use "
              "in the mail demos.\n\n- Second, a video call will be held and recorded, which can be used in the call "
              "demos.\n\nIt is highly recommended that someone on the crew hosts the rehearsal. The host should read this "
              "whole guide before the rehearsal session. IMPORTANT considerations:\n\n- We strongly suggest you set up "
              "these made-up calls with your sandbox workspace. We do not recommend using your staff account given you "
              "can accidentally leak private client data, which could result in a breach report.\n")


def test_a_why_question_is_answered_by_the_close_sentence_that_gives_a_reason() -> None:
    passages = [Passage(1, _REHEARSAL, {"source": "rehearsal.md", "heading": "Rehearsal session > Introduction"})]
    answer = extractive_answer("Our crew wants to write the made-up demo mail thread and record the video call from our "
                               "staff accounts. Why does the rehearsal-session guide advise against that?", passages)
    assert answer.startswith("Introduction: We strongly suggest") and "leak private client data" in answer, answer


def test_a_name_does_not_answer_for_a_length_of_time() -> None:
    # "What warranty period …?": the launch sentence names the drone and a season, not a period
    passages = _passages(
        ("# Skylift Announces the Launch of a New Delivery Drone\n\nThe drone, named Hopper, will be available for "
         "customers in summer 2024 and will offer faster, safer and greener delivery options. Hopper uses advanced "
         "Computer Vision to navigate crowded streets.", "press-release.docx"),
    )
    assert extractive_answer("What warranty period does Skylift give buyers of its Hopper delivery drone?",
                             passages) == REFUSAL
    warranty = _passages(("## Warranty\n\nEvery Skylift Hopper comes with a warranty period of 24 months from delivery.", "faq.docx"))
    assert "24 months" in extractive_answer("What warranty period does Skylift give buyers of its Hopper drone?", warranty)


GAUGE = _passages(
    ("## Exporting tide times\n\n1. Create a gauge feed in the harbour console.\n"
     "   Make sure the clock of the gauge feed is set to UTC. You will get tide times shifted by an hour if "
     "not. The clock of the console does not matter.\n2. Add the feed's key to your configuration as "
     "export.key.", "export.md"),
    ("## Settings\n\n- export.key: Key to read your gauge feed.", "settings.md"),
)


def test_a_misconfiguration_is_answered_by_the_advice_that_puts_it_right() -> None:
    """"What is the likely misconfiguration …?" is answered by "Make sure … is set to UTC", which
    never says the noun. Before: refused, the answer never said "misconfiguration"."""
    answer = extractive_answer("I set up the tide export, but every exported tide time is shifted by an hour. "
                               "What is the likely misconfiguration of the gauge feed?", GAUGE)
    assert "set to UTC" in answer, answer


def test_how_much_faster_is_answered_by_the_difference_without_the_word() -> None:
    """Before, "faster" was read as the noun asked for, and the sentence that gives the difference
    ("improves loading … between 20-40%") was refused for never saying it."""
    notes = _passages(("## Performance\n\nNote that `libtide` version 4.10.0 improves chart loading and saving "
                       "performance, measured between 20-40% in Tidekit's benchmarks.", "whatsnew/3.15.rst"))
    got = extractive_answer("How much faster did chart loading and saving get in the Tidekit benchmarks once "
                            "libtide 4.10.0 came out?", notes)
    assert "20-40%" in got, got
