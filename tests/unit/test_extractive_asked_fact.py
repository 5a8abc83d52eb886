"""The offline answerer states the asked fact: a default asked for in other words ("unless I
change it"), a person or a value whose sentence leaves its subject to the sentence beside it, the
command a "what do I run" question wants, the negation that answers a "Can I …?" question, the
reason a "why" question wants, and a refusal when the asked thing is not there. The passages are
small hand-written documents with the shapes found in real documentation."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.answer_type import asks_replacement
from ragkit.rag.extractive.text import stem
from ragkit.rag.extractive.values import implied_default, value_question
from ragkit.rag.passages import Passage


def passages(*texts: tuple[str, str, str]) -> list[Passage]:
    """Passages (source, heading, text) numbered from 1, each from its own place in its file."""
    return [Passage(n, text, {"source": source, "heading": heading, "start": str(n * 1000)})
            for n, (source, heading, text) in enumerate(texts, 1)]


BERTHS = passages(
    ("kelp-config.adoc", "kelp-config(5) > General settings",
     "== General settings\n\n- `kelp.credentialCache`\n\nKeeps harbour credentials in memory for a single 'kelp' "
     "command. Default: enabled.\n- `kelp.berthCacheSize`\n\nSets the size of the in-memory cache of results from "
     "matching berth names\nagainst the filter defined by the `kelp.fetchInclude` and `kelp.fetchExclude`\noptions.\n"
     "Set to `0` or `none` to disable the cache, or to `unlimited` to allow\nthe cache to grow without bound.  "
     "Default: 4,096 berth names.\n- `kelp.storage`\n\nOverrides the storage directory."),
)


SETTINGS = passages(
    ("settings.rst", "Settings > Page output > page_anchor_icon",
     "### page_anchor_icon\n\nType: str\n\nDefault: '§' (the section sign)\n\n"
     "Text for link anchors beside each title and description block. HTML entities are allowed."),
    ("settings.rst", "Settings > Page output > page_sidebar_width",
     "### page_sidebar_width\n\nType: int\n\nDefault: 230\n\nThe width of the sidebar in pixels."),
)


def test_a_default_asked_for_in_other_words_is_a_value_question() -> None:
    assert implied_default("What icon is shown unless I change it?") == "unless I change it"
    assert implied_default("How are keys compared if I don't pass a function?") == "if I don't pass"
    assert implied_default("What icon is shown beside each title?") == ""
    assert implied_default("How big can the cache get if I leave the setting alone?") == "if I leave the setting alone"
    assert implied_default("Which port is used if the option is left unset?") == "if the option is left unset"
    assert implied_default("Should I leave the setting alone?") == ""
    assert implied_default("Which level does the compiler use when I don't pass one?") == "when I don't pass"
    assert value_question("Which sign is used as the separator unless you override it?") == (True, None)


def test_the_default_line_answers_a_question_that_describes_its_setting() -> None:
    """Before: refused. The question names no setting, and "Default: '§'" shares none of its
    words: the description beside it does."""
    got = extractive_answer("What symbol is shown as the anchor link beside each title unless I change it?", SETTINGS)
    assert "'§'" in got and got != REFUSAL


def test_leaving_a_setting_alone_asks_for_its_default() -> None:
    """"… if I leave the setting alone?" asks for the default as "unless I change it" does. Before:
    "leave", "setting" and "alone" were words to match, and the sentence on growing without bound
    was the answer."""
    got = extractive_answer("How big can the in-memory cache of berth-match results get before it stops growing, "
                            "if I leave the setting alone?", BERTHS)
    assert "4,096" in got, got


IMAGES = passages(
    ("guides/jobs.md", "Jobs > Kelp scripts > Docker images for kelp scripts",
     "#### Docker images for kelp scripts\n\nWhile kelp scripts can declare their dependencies inline, training "
     "workloads often have complex dependencies. Using pre-built Docker images with these libraries already "
     "installed can significantly speed up job startup and avoid dependency issues.\n\nBy default, when you run "
     "`kelp jobs run` the `harbour/kelp:3.12-slim` image is used. This image is based on Debian with kelp "
     "pre-installed.\n\nYou can pick a different image with the `--image` flag:\n\n```bash\nkelp jobs run "
     "--image harbour/kelp-gpu:latest train.py\n```"),
)


def test_and_not_passing_an_option_asks_for_its_default() -> None:
    """"… and don't pass --image, which image …?" asks for the default as "if I don't pass" does.
    Before, the phrase was not read as asking for one ("pass" was a word to match), and on a guide
    with more passages around it the sentence sharing most words (scripts, Docker images, job)
    was the answer."""
    assert implied_default("If I launch a kelp script as a Job and don't pass --image, which image is used?") == \
        "and don't pass"
    got = extractive_answer("If I launch a kelp script as a Job and don't pass --image, which Docker image does it "
                            "run in?", IMAGES)
    assert "harbour/kelp:3.12-slim" in got, got


LEVELS = passages(
    ("running.md", "Running > Optimizations",
     "## Optimizations\n\nIt's no longer necessary to run `kelp.opt.start()`, which was one of the ways to enable "
     "optimization. The module is built-in and optimization is turned on by default! The first form sets an "
     "optimization level: -O0 turns off all optimizations and higher numbers enable more optimizations. Omitting "
     "the level (i.e. just -O) sets the default optimization level, which is -O3 in the current version."),
)


def test_when_i_do_not_pass_one_asks_for_the_default() -> None:
    """"… when I don't pass one?" asks for a default, as "if I don't pass" does: its words name no
    subject. Before, "don't", "pass" and "one" were matched, and the answer was the sentences
    about turning optimization on."""
    got = extractive_answer("Which optimization level does the Kelp compiler use when I don't pass one?", LEVELS)
    assert "-O3" in got


GUIDE = passages(
    ("guides/internals.md", "Store internals",
     "This guide is useful for those who want to understand the store implementation of Zephyr. It's not meant "
     "to be a complete example of the store implementation but rather a simplified version. It's inspired by the "
     "collection of tweets by Marta Quell([@mquell](https://example.com/mquell))."),
    ("guides/intro.md", "Introduction", "Zephyr stores hold atoms. Each atom is a piece of state."),
)


def test_a_whose_question_is_answered_by_the_sentence_with_the_name_beside_its_subject() -> None:
    """Before: refused. The sentence with the name shares one word with the question
    ("tweets"); the sentence before it says what the guide is."""
    got = extractive_answer("Whose tweets is the simplified store internals guide based on?", GUIDE)
    assert "Marta Quell" in got


FOOTER = passages(
    ("settings.rst", "Settings > Page output > page_updated_fmt",
     "### page_updated_fmt\n\nType: str | None\n\nDefault: None\n\nIf set, a 'Last updated on:' timestamp is inserted "
     "into the page footer using the given strftime() format. The empty string is equivalent to '%d %B %Y' "
     "(or a locale-dependent equivalent)."),
    ("settings.rst", "Settings > Page output > page_sidebar_width",
     "### page_sidebar_width\n\nType: int\n\nDefault: 230\n\nThe width of the sidebar in pixels."),
)


def test_a_conditional_question_is_answered_with_the_sentence_about_its_case() -> None:
    """Before: the general description only ("If set, a … timestamp is inserted …"): the case
    the question states (an empty string) is the next sentence's."""
    got = extractive_answer("If I set page_updated_fmt to an empty string, what date format ends up in the footer?",
                            FOOTER)
    assert "'%d %B %Y'" in got



BACKENDS = passages(
    ("advanced/events.rst", "Event loops > Linux",
     "## Linux\n\nOn Linux, Quarry is not compatible with the default EpollReactor. Please pick a different "
     "reactor, for instance the PollReactor. See the reactor guide for details.\n\n"
     "In a program without an event loop you can use plain sockets."),
    ("advanced/events.rst", "Event loops > Timers",
     "## Timers\n\nIn an event loop program a timer can be added with call_later instead of a thread."),
)


def test_a_question_that_asks_what_to_use_instead_gets_the_alternative_beside_the_problem() -> None:
    """The sentence that shares the question's words says what does not work ("… not compatible
    with the default EpollReactor"); the alternative asked for is in the next one. Before: the
    problem alone."""
    got = extractive_answer("My Quarry event loop on Linux doesn't work with the default reactor. Which reactor "
                            "should I switch to?", BACKENDS)
    assert "PollReactor" in got, got
    assert asks_replacement("Which reactor should I use instead?") and asks_replacement("What replaced it?")
    assert not asks_replacement("How often do the peers switch to fresh keys?")
    assert not asks_replacement("Which option makes close() hand the connection back instead of closing it?")

STEPS = passages(
    ("advanced/translate.rst", "Translating > Workflow",
     "## Workflow\n\n1. Set the catalog directory in your configuration.\n\n"
     "2. Collect the strings to translate into catalog templates.\n\n   ```console\n   $ make catalogs\n   ```\n\n"
     "   The generated templates will be placed in the `_build/catalogs` directory. You can edit them with any tool."
     "\n\n3. Translate the templates and build."),
)


def test_what_do_i_run_is_answered_with_the_command_of_the_step() -> None:
    """Before: "The generated templates will be placed in …", a sentence about the result: the
    step restates the question, and its command is the code block nested under it."""
    got = extractive_answer("What do I run to collect the strings to translate into catalog templates?", STEPS)
    assert "$ make catalogs" in got and "Collect the strings" in got


INSTALLS = passages(
    ("pip/packages.md", "Managing packages > Editable packages",
     "## Editable packages\n\nEditable packages do not need to be reinstalled for changes to their source code to be "
     "active.\n\nTo install the current project as an editable package\n\n```console\n$ tern pip install -e .\n```\n\n"
     "To install a project in another directory as an editable package:\n\n```console\n"
     "$ tern pip install -e \"lib @ ./project/lib\"\n```"),
    ("pip/compat.md", "Compatibility with pip > `--global` and the `global` install scheme",
     "## `--global` and the `global` install scheme\n\ntern does not support the `--global` flag, which installs "
     "packages based on the `global` install scheme.\nInstead, we recommend the use of project environments to "
     "isolate package installations."),
    ("pip/packages.md", "Managing packages > Installing a package",
     "## Installing a package\n\nTo install a package into the project environment, e.g., Flask:\n\n```console\n"
     "$ tern pip install flask\n```"),
)


def test_a_can_i_question_is_answered_by_the_sentence_that_says_no() -> None:
    """Before: "To install a project in another directory as an editable package:", an install
    example that shares more of the question's words than the sentence that answers it."""
    got = extractive_answer(
        "Can I install packages into my global site-packages with tern pip install --global like I do with pip?",
        INSTALLS)
    assert got.startswith("tern does not support the `--global` flag"), got


WARNING = passages(
    ("extensions/sourcelinks.rst", "sphinx.ext.sourcelinks -- Add links to source code",
     "# sphinx.ext.sourcelinks -- Add links to source code\n\nThis extension looks at your object descriptions and "
     "tries to find the source files where the objects are defined.\n\n!!! warning\n\n"
     "    The sourcelinks extension will load the modules being linked to. If any modules have side effects on "
     "loading, these will be run when the build is run.\n\n    If you document scripts (as opposed to library "
     "modules), make sure their main routine is protected by an `if __name__ == '__main__'` condition.\n\n"
     "This extension works only on HTML builders."),
)


def test_a_why_question_about_advice_is_answered_with_the_fact_before_it() -> None:
    """Before: the advice alone ("make sure their main routine is protected …"), which says what
    to do, not why: the paragraph before it gives the reason."""
    got = extractive_answer(
        "Why should the scripts I document guard their main routine when the sourcelinks extension is on?", WARNING)
    assert got.startswith("The sourcelinks extension will load the modules being linked to."), got
    assert "make sure their main routine is protected" in got


KEEPERS = passages(
    ("guides/keeper.md", "Keeper",
     "## Keeper\n\n`Keeper` will hold the state of the lanterns used in its harbour instead of the global depot. "
     "`Keeper`'s lifetime will be the same as the harbour itself, and since the harbour is rebuilt on each tide "
     "we limit the lifetime of the depot to a single tide as well."),
    ("guides/performance.md", "Performance",
     "## Performance\n\nA depot that lights lanterns one by one slows the whole town down. Keep the number of "
     "derived lanterns small."),
    ("guides/depot.md", "Depot", "## Depot\n\nThe depot stores every lantern of the town. A lantern is lit at dusk."),
)
LIMIT = "What is the maximum number of lanterns a single depot can hold before it slows down?"


def test_a_number_question_is_refused_when_the_best_sentence_has_no_number_and_misses_part_of_it() -> None:
    """Before: the sentences about what a keeper holds, though they give no number and say
    nothing of a limit or of slowing down (words other passages have)."""
    assert extractive_answer(LIMIT, KEEPERS) == REFUSAL


def test_the_same_question_is_answered_when_a_sentence_gives_the_number() -> None:
    stated = [*KEEPERS[:2], Passage(3, "## Depot\n\nThe depot stores every lantern of the town. A single depot can "
                                       "hold at most 400 lanterns before it slows down.",
                                    {"source": "guides/depot.md", "heading": "Depot", "start": "3000"})]
    assert "400 lanterns" in extractive_answer(LIMIT, stated)


BUILDS = passages(
    ("concepts/runtimes.md", "Runtimes > Managed runtimes",
     "## Managed runtimes\n\ntern supports downloading and installing CPython, PyPy, and Pyodide distributions. "
     "Downloads are cached.\n\nAs the runtime does not publish official binaries, tern instead uses pre-built "
     "distributions from the Harbor `static-runtime-builds` project."),
)


def test_a_whose_question_is_answered_by_the_project_that_owns_it() -> None:
    """Before: "tern supports downloading … CPython, PyPy …", whose product names read as a
    person's; a project named as the owner answers "Whose …?" as a person does."""
    got = extractive_answer("Whose builds of the runtime does tern download when it installs one?", BUILDS)
    assert got.startswith("As the runtime does not publish official binaries"), got


REPORT = [Passage(1, (
    "Harrow Light Trust Annual Report 2021\n\nChair's summary\n\n2021 was the trust's first full year with the "
    "new lamp room. Twelve volunteer keepers from four villages served at the light, and the winter school "
    "visits returned after a long break.\n\nThe highlight of the year was the relighting of the north lamp on "
    "3 June 2021. It replaces the lamp that was damaged in the gale of 1987.\n\nFinances\n\nTotal expenditure "
    "for the year was 2.35 million pounds. The county council provided 55 percent of the budget, and donations "
    "the rest. The largest single cost was the lamp room, at 412,000 pounds."),
    {"source": "annual-report-2021.docx", "heading": "", "start": "0"})]


def test_a_number_in_words_of_another_measure_still_answers_a_money_question() -> None:
    """"2.35 million pounds" is not written as an amount of money is ("£2.35m"), and "spend" is
    not "expenditure": the best sentence is still a number, so the question is not refused."""
    got = extractive_answer("How much did the light spend in total in 2021?", REPORT)
    assert "2.35 million pounds" in got


NETWORK = passages(
    ("network.md", "Network > Timeouts",
     "## Timeouts\n\nWhile the resolver is fast enough for most projects, some mirrors answer slowly. "
     "Kelp's default download timeout is 20 seconds, the same as curl's. "
     "Downloads that keep failing on a slow link are usually fixed by a nearer mirror."),
    ("network.md", "Network > Retries",
     "## Retries\n\nA failed download is retried three times before the install stops."),
)


def test_an_owners_default_is_a_declared_default() -> None:
    """"Kelp's default download timeout is 20 seconds" declares a default as "the default … is"
    does. Before, the sentence held no declared default, so the question (which asks for one)
    found nothing of its kind and was refused."""
    from ragkit.rag.extractive.values import declares_default
    assert declares_default("Kelp's default download timeout is 20 seconds.")
    assert declares_default("Its default value is 3.")
    assert not declares_default("Kelp's download timeout is 20 seconds.")
    got = extractive_answer("My downloads keep timing out on a slow link; how long does Kelp wait for a download "
                            "by default?", NETWORK)
    assert "20 seconds" in got and got.endswith("[1]")


STORAGE = passages(
    ("settings.md", "Settings > Available settings > `data-dir`",
     "### `data-dir`\n\n**Type**: `string`\n\nThe folder where Kelp keeps downloaded archives.\n\n"
     "Defaults to one of the following folders:\n\n"
     "- Linux:   `~/.local/share/kelp`\n- macOS:   `~/Library/Application Support/kelp`\n"
     "- Windows: `C:\\Users\\<name>\\AppData\\Roaming\\kelp`"),
    ("settings.md", "Settings > Available settings > `retries`",
     "### `retries`\n\n**Type**: `int`\n\n**Default**: `3`\n\nHow often a download is tried."),
)


def test_an_item_of_a_list_of_defaults_holds_a_default() -> None:
    """An item of a list led by "Defaults to one of the following folders:" is a default though it
    does not say so itself. Before, a question asking for the default ("if I don't configure
    anything") found no item declaring one and was refused."""
    got = extractive_answer("Where does Kelp keep downloaded archives on Linux if I don't configure anything?", STORAGE)
    assert "~/.local/share/kelp" in got and got.endswith("[1]")


MASCOT = passages(
    ("mascot.md", "Mascot > Background",
     "## Background\n\nIn 2014, harbour engineer Ilse Marten was looking for a way to explain ferries to "
     "children. Inspired by her nephew's toy boats, she came up with the idea of a talking buoy. "
     "With two friends, she drew Bobby, the red buoy, and sent him on his first voyage.\n\n"
     "In 2019, Bobby was given to the Harbour Trust."),
)


def test_a_person_named_by_a_pronoun_brings_the_sentence_that_names_them() -> None:
    """"Who came up with the idea …?" is answered by "…, she came up with the idea": the person is
    the one the sentence before names. Before, the answer quoted the pronoun's sentence alone."""
    got = extractive_answer("Who came up with the idea for Bobby?", MASCOT)
    assert "Ilse Marten" in got and "she came up with the idea" in got


SPEAKERS = passages(
    ("events/launch.md", "Launch event > Day 1",
     "## Day 1\n\nOrla Penhallow is a harbour engineer working on tidal locks, currently focused on the gates "
     "of small ports. She has published over 30 papers on sluices and silt. She previously worked at the Port "
     "Authority as a Senior Engineer, where she founded and co-led the Authority's Tide Safety group. "
     "She likes gardening.\n\nBram Oduya is a ferry captain. He has sailed the northern route since 2009."),
)


def test_which_speaker_asks_for_a_person_named_two_sentences_before() -> None:
    """"Which speaker … founded …?" asks who, as "Who …?" does; the sentence that says it names
    her by a pronoun, and the name is two sentences before. Before, the question asked for nothing
    in particular and the answer quoted "She previously worked …" alone."""
    from ragkit.rag.extractive.answer_type import answer_type
    assert answer_type("Which speaker at the launch founded the Tide Safety group?")[0] == "person"
    assert answer_type("In the 2021 vote, which member abstained?")[0] == "person"
    assert answer_type("Which developer skills does the project list?")[0] is None  # a modifier
    assert answer_type("What members does a Kelp class have?")[0] is None  # a program's members
    assert answer_type("Which editor is used for commit messages?")[0] is None  # a program
    got = extractive_answer("Which speaker at the launch event founded and co-led the Tide Safety group?", SPEAKERS)
    assert "Orla Penhallow" in got and "founded and co-led" in got
    assert "Bram Oduya" not in got


CACHES = passages(
    ("completion.md", "kelp completion bash > Synopsis",
     "### Synopsis\n\nGenerate the autocompletion script for Kelp for the bash shell.\n\n"
     "To load completions in your current shell session:\n\n    source <(kelp completion bash)\n\n"
     "To load completions for every new session, execute once:\n- Linux:\n\n"
     "      kelp completion bash > /etc/bash_completion.d/kelp\n\n- MacOS:\n\n"
     "      kelp completion bash > /usr/local/etc/bash_completion.d/kelp\n"),
)


def test_where_a_program_keeps_something_asks_for_a_path() -> None:
    """"Where should I write …?", "Where does … keep its cache?" ask for a path. Before, the
    question asked for nothing in particular and the answer quoted the current session's
    command, which writes no file."""
    from ragkit.rag.extractive.values import holds_value
    assert value_question("Where does Kelp keep its cache on a Mac?") == (True, "path")
    assert value_question("On a Mac, where should I write the output of the completion command?") == (True, "path")
    assert value_question("Where should Kelp keep passwords, in Vault or in a file?") == (False, None)  # a choice
    assert value_question("Where are payments deposited?") == (False, None)
    words = frozenset("where does kelp keep its cache".split())
    for path in ("~/Library/Caches/kelp", "/etc/kelp/site.crt", "src/bin/", ".kelp_cache", "%APPDATA%\\kelp",
                 "C:\\Kelp\\cache"):
        assert holds_value("path", f"It is kept in {path}.", words), path
    for text in ("Use TCP/IP and/or UDP.", "Read 1/2 of it.", "See https://kelp.example/a/b for more.",
                 "It is kept in the cache."):
        assert not holds_value("path", text, words), text
    got = extractive_answer("On macOS, where should I write the output of the bash completion command so that "
                            "every new shell session picks up Kelp completions?", CACHES)
    assert "/usr/local/etc/bash_completion.d/kelp" in got


HISTORY = passages(
    ("history.adoc", "A Short History of Kelp",
     "== A Short History of Kelp\n\nDuring the early years (1991–2002), changes were passed around as patches. "
     "In 2002, the project began using a proprietary tool called ReefTrack. "
     "In 2005, the tool's free-of-charge status was revoked."),
)


def test_a_version_control_system_is_not_a_version() -> None:
    """"Which … version control system …?" asks for a system, not a version: "version" only
    modifies "control". Before, the question asked for a version number, none was in the passage
    next to the system's name, and it was refused."""
    from ragkit.rag.extractive.values import value_question
    assert value_question("Which proprietary version control system did Kelp use?") == (False, None)
    assert value_question("Which release notes mention the parser?") == (False, None)
    assert value_question("Which Kelp version added the parser?") == (True, "version")
    got = extractive_answer("Which proprietary version control system did the project use before Kelp?", HISTORY)
    assert "ReefTrack" in got


def test_the_oldest_of_a_product_asks_for_its_version() -> None:
    """"What is the oldest Python it works with?" asks for a Python version, as "Which Python
    version …?" does: the sentence that gives one answers, not the one that repeats the question's
    words. Before: "Most notably, all support for Python 2 has now been dropped." """
    assert value_question("What is the oldest Python it works with?") == (True, "version")
    assert value_question("What is the newest Node supported?") == (True, "version")
    assert value_question("Who was the oldest Maintainer?") == (False, None)
    assert value_question("What is the highest score in the table?") == (False, None)
    text = ("v0.10.0 (January 2020)\n----------------------\n\nThis is a major update that is being released "
            "simultaneously with version 0.9.1. It has all of the same features (and bugs!) as 0.9.1, but there are "
            "important changes to the dependencies.\n\nMost notably, all support for Python 2 has now been dropped. "
            "Support for Python 3.5 has also been dropped. Tidekit is now strictly compatible with Python 3.6+.\n\n"
            "Minimally supported versions of the dependent libraries have also been increased. Going forward, tidekit "
            "will likely stay close to the community guidelines for version support.\n")
    notes = [Passage(1, text, {"source": "whatsnew/v0.10.0.rst"}),
             Passage(2, "v0.9.1 (January 2020)\n---------------------\n\nThis is the final version of tidekit that "
                        "will support Python 2.7 or 3.5.\n", {"source": "whatsnew/v0.9.1.rst"})]
    got = extractive_answer("After tidekit dropped Python 2 in 0.10, what is the oldest Python it works with?", notes)
    assert got.startswith("Tidekit is now strictly compatible with Python 3.6+."), got


def test_the_minimum_version_of_a_tool_named_in_lower_case_asks_for_a_version() -> None:
    """"What is the minimum tidectl version …?": a tool's name in lower case before "version" names
    the product too. Before, the question asked for no kind, and the sentence with "2.4.1 or later"
    was refused for never saying "version"."""
    assert value_question("What is the minimum tidectl version that works with harbourd?") == (True, "version")
    assert value_question("What is the minimum size of a berth?") == (False, None)
    pages = passages(
        ("harbourd_serve_tide.md", "harbourd serve tide > Setting up tidectl to use harbourd",
         "## Setting up tidectl to use harbourd\n\nNow you can follow the tidectl instructions on setting up "
         "the store. Note that you will need tidectl 2.4.1 or later to interoperate with harbourd."),
        ("harbourd_serve_tide.md", "harbourd serve tide > Synopsis",
         "## Synopsis\n\nRun a basic tide server to serve a remote over HTTP, so tidectl can use it as a "
         "backend for its backups."))
    got = extractive_answer("We want tidectl to back up through harbourd serve tide. Our build machines ship an "
                            "old tidectl. What is the minimum tidectl version that works with harbourd?", pages)
    assert "2.4.1 or later" in got, got


LOGBOOKS = passages(
    ("logbook.md", "Logbook files",
     "## Logbook files\n\nThe harbour office reads its settings from a logbook file. In each dock it will look "
     "for the following logbook files (in this order):\n\n1. harbour.ini\n2. .harbour.ini\n3. tide.toml\n\n"
     "It is important to understand that there is no merging of logbook files, as it would lead to confusion "
     "over which setting wins."),
)


def test_a_why_question_that_names_several_things_asks_for_the_reason_not_a_list() -> None:
    """"several logbook files" is a plural, not a list asked for. Before: the list of the files the
    office looks for, which says nothing of why they are not merged."""
    got = extractive_answer("Why doesn't the harbour office merge the settings of several logbook files it finds?",
                            LOGBOOKS)
    assert "confusion" in got and "harbour.ini" not in got, got


TIDES = passages(
    ("gauges/reading.md", "Reading a gauge",
     "## Reading a gauge\n\nThe harbour office shows the level of the most recent reading of a gauge at or "
     "before the hour asked about. The office only looks at a gauge if its most recent reading is newer than the "
     "quiet window."),
    ("gauges/gotchas.md", "Gotchas > Quiet gauges",
     "## Quiet gauges\n\nA gauge that stops sending readings is marked quiet. The quiet window is 20 minutes by "
     "default, but can be changed with the `--quiet-window` flag."),
)


def test_a_value_is_read_from_the_sentence_that_defines_a_term_the_best_sentence_uses() -> None:
    """The best sentences speak of "the quiet window" but give no value; another passage opens
    with that term and gives it. Before: a refusal (the best sentence holds no value)."""
    got = extractive_answer("By default, how far back does the harbour office look for the most recent reading "
                            "of a gauge?", TIDES)
    assert "20 minutes" in got and "[2]" in got, got


RELEASE_GUIDE = passages(
    ("release.rst", "Release freeze",
     "## Release freeze\n\nThe Harbour release team keeps the main branch closed to new features for two weeks "
     "before each release while translators and packagers catch up. This quiet stretch is referred to as "
     "the *lull* and gives packagers time to build.\n\nA release is cut from the main branch on Tuesday."),
)


def test_what_a_thing_is_called_is_answered_by_the_sentence_that_names_it() -> None:
    for question in ("What does the Harbour release team call the weeks before a release when the main branch "
                     "is closed to new features?",
                     "What is the two-week stretch before a Harbour release called?"):
        answer = extractive_answer(question, RELEASE_GUIDE, max_sentences=1)
        assert "referred to as the lull" in answer and "[1]" in answer


SCHEDULER_HISTORY = passages(
    ("history.md", "Tern",
     "## Tern\n\nTern is a job scheduler: the Tern name appears in every log line it writes, and Tern runs jobs on "
     "many machines.\n\n### History\n\nThe project began in 2019 as a fork of an older scheduler. In 2020 the "
     "maintainers adopted the name \"Tern\" (taken from the seabird that migrates farthest, not an acronym)."),
)


def test_where_a_name_comes_from_is_answered_by_the_sentence_that_says_what_it_is_named_after() -> None:
    answer = extractive_answer("Where does the name Tern come from?", SCHEDULER_HISTORY, max_sentences=1)
    assert "taken from the seabird" in answer and "[1]" in answer


CACHE_EXPIRY = passages(
    ("cache.md", "Expiry",
     "## Expiry\n\nTo keep entries small, the cache stores expiry times as offsets, and the pool carries a "
     "\"start stamp\", set once when created, and the expiry offsets are counted from that. This works for "
     "about 90 days of continuous uptime of a pool.\n\nEntries are removed when they expire."),
)


def test_a_number_given_of_this_is_quoted_with_the_sentence_this_points_back_to() -> None:
    question = "Since cache expiry offsets are counted from a start stamp, for how long can a pool keep running before that breaks?"
    answer = extractive_answer(question, CACHE_EXPIRY, max_sentences=1)
    assert "counted from that. This works for about 90 days" in answer and "[1]" in answer


ROTATION = passages(
    ("keys.md", "Key handling > Applying key rotation",
     "## Applying key rotation\n\nSigning keys should be replaced on a fixed schedule. Key rotation may cause an outage "
     "while the gateway restarts to load the new key. A usual remedy is to hold two keys at once, called overlapping "
     "rotation: a second gateway starts with the new key before the old one is revoked, so no outage happens."),
    ("keys.md", "Key handling > Storing keys",
     "## Storing keys\n\nKeys are kept in the vault and never written to the repository."),
)


def test_a_verb_in_ate_meets_its_noun_in_ation() -> None:
    """"rotating" and "rotation" are one word to the answerer, as "installing" and "installation"
    are; "format" stays apart from "form". Before: "rotation" was stemmed "rot" and "rotating"
    "rotat", the question's word was in no sentence, and the answer was refused."""
    assert stem("rotating") == stem("rotation") == stem("rotate") == stem("rotates")
    assert stem("migrated") == stem("migration") and stem("updating") == stem("updates")
    assert stem("format") != stem("form") and stem("state") == stem("states") and stem("treated") == stem("treat")
    assert stem("configurations") == stem("configuration") == stem("configure")
    got = extractive_answer("Why does the handbook suggest keeping two signing keys around when rotating them?", ROTATION)
    assert "outage" in got


CHECKSUMS = passages(
    ("hashing.rst", "Hashing > Keyed checksums",
     "Keyed checksums\n===============\n\nThe fold64 checksum can be used directly as a keyed MAC, "
     "replacing the HMAC construct, by setting the additional parameters secret and tweak.\n\n"
     "Checksums of large files are computed in blocks of 64 kilobytes."),
)


def test_arguments_asked_for_are_answered_by_parameters() -> None:
    """A reference writes a call's "parameters" where the question says "arguments": the answer
    names what is asked for. Before: refused, for the noun "arguments" is in no answer sentence."""
    got = extractive_answer("To use fold64 as a keyed MAC in place of HMAC, which extra arguments do I set?", CHECKSUMS)
    assert "secret" in got and "tweak" in got


MOORINGS = passages(
    ("kelp-moorings.adoc", "kelp-moorings(1) > OPTIONS",
     "== OPTIONS\n\n`-p <path>`:\n`--path=<path>`:\n   Specifies a mooring by its berth. Returns a single result.\n"
     "`--local`:\n  Lists only our own moorings which are cached locally. Skips a radio call.\n"
     "`--stale`:\n  Lists cached moorings from the last radio call. Contrary to `--local`, this will\n"
     "  include moorings of other crews as well. This option is meant to show the\n"
     "  last known moorings in case the radio is down.\n"
     "`--verify`:\n  Verifies the mooring owner with the harbour office."),
)


def test_a_definition_sentence_is_quoted_with_its_term() -> None:
    """A man page's options (an AsciiDoc definition list: "`--stale`:" on its line, its
    description under it): the sentence that answers does not say which option it describes, so
    its term is quoted before it. Before: "Contrary to `--local`, this will include moorings of
    other crews as well." alone, which names no option but the wrong one."""
    got = extractive_answer("The radio is down and I want the last known moorings, including other crews'. "
                            "Which kelp moorings option does that?", MOORINGS)
    assert got.startswith("`--stale`: "), got
    assert got.count("`--stale`") == 1, got


#: a reference page whose parameter list gives the port's number bare, after "Default is"
LIGHTHOUSE = passages(
    ("reference.rst", "Reference > Running a beacon > open_beacon",
     "open_beacon(station, *, host=None, port=None, path=None, backlog=128)\n\n"
     "Run a beacon station until a keyboard interrupt.\n\n"
     "- path: file system path for the beacon's Unix domain socket. A sequence of file system paths can be "
     "used to listen on several sockets at once; listening on sockets is not supported by every system.\n"
     "- station: Station instance to run, or a coroutine that returns one.\n"
     "- port (int): TCP/IP port for the beacon. Default is 7410 for plain signals and 7411 for signed ones.\n"
     "- host (str): TCP/IP host or a sequence of hosts for the beacon. Default is '0.0.0.0'."),
)


def test_a_port_given_bare_in_its_own_entry_answers_which_port() -> None:
    question = "On which port does open_beacon listen if I don't give one?"
    assert value_question(question) == (True, "port")
    answer = extractive_answer(question, LIGHTHOUSE)
    assert "7410" in answer.split("[1]")[0], answer


#: a policy page whose tiers share their wording: only the number says which tier a list is
TIERS = passages(
    ("policies/engines.md", "Engine support > Engines",
     "## Engines\n\nkiln has Tier 1 support for the following glaze engines:\n\n- Stoneware\n\n"
     "Tier 1 support can be thought of as \"guaranteed to work\"; its builds are maintained by the kiln team.\n\n"
     "kiln has Tier 2 support for:\n\n- Raku\n- Celadon\n- Majolica\n\n"
     "kiln is \"expected to work\" with these engines, but their builds are not maintained by the kiln team.\n\n"
     "kiln has Tier 3 support for:\n\n- Terra\n\nkiln \"should work\" with these engines."),
)


def test_a_numbered_name_in_the_question_passes_over_the_others_of_its_name() -> None:
    from ragkit.rag.extractive.query import another_numbered, numbered_names

    assert numbered_names("Which engines does kiln support at Tier 2?") == {("tier", "2")}
    assert numbered_names("In 2024, which 3 workers ran RFC 6585?") == {("rfc", "6585")}
    assert another_numbered("kiln has Tier 1 support", frozenset({("tier", "2")}))
    assert not another_numbered("Tier 1 and Tier 2 differ", frozenset({("tier", "2")}))
    assert not another_numbered("On Windows 7 and later: C:\\ProgramData", frozenset({("windows", "10")}))  # a range
    assert numbered_names("After it stopped supporting Python 2, which Python 3 …?") == {("python", "2"), ("python", "3")}
    answer = extractive_answer("Which glaze engines besides Stoneware does kiln support at Tier 2?", TIERS)
    assert all(name in answer for name in ("Raku", "Celadon", "Majolica")), answer


def test_a_name_numbered_in_roman_numerals_passes_over_its_other_numbers() -> None:
    from ragkit.rag.extractive.query import another_numbered, numbered_names

    assert numbered_names("How does TIDE-IV keep a stay?") == {("tide", "4")}
    assert numbered_names("Is Part II longer?") == {("part", "2")}
    assert numbered_names("I read it. V is a letter.") == frozenset()  # "I" and "V" are words and letters too
    assert another_numbered("In the TIDE-III archive a stay is kept", frozenset({("tide", "4")}))
    assert not another_numbered("Both TIDE-III and TIDE-IV keep it", frozenset({("tide", "4")}))
    stays = passages(
        ("iii/stays.md", "Stays", "In the TIDE-III archive, a ward stay is kept when the patient stays longer than "
                                  "four hours in the ward."),
        ("iv/stays.md", "TIDE-IV ward log", "A ward stay is kept when a pulse reading exists for it in the ward log."),
    )
    assert "pulse reading" in extractive_answer("How does TIDE-IV decide which ward stays are kept?", stays)


#: a book's chapter that uses its term in many sentences and defines it in one, further down
TIDY = passages(
    ("ch04.md", "Chapter 04: Tidy Tables",
     "The example here shows that the tidy table must be honest about its columns and, as such, tell us exactly "
     "what each one holds. Just from its header, we know that it will use a `date`, `site` and `count`, which "
     "should be telling to say the least."),
    ("ch04.md", "Chapter 04: Tidy Tables > In Summary",
     "We've seen what tidy tables are and why we, as analysts, believe they are worth the trouble. From this "
     "point on, we'll strive to keep all our tables tidy."),
    ("ch04.md", "Chapter 04: Tidy Tables > Oh to Be Tidy Again",
     "One thing we need to get straight is the idea of a tidy table.\n\n"
     ">A tidy table is a table in which every column holds one variable and every row holds one observation."),
)


def test_a_question_that_asks_how_the_book_defines_a_term_is_a_definition_question() -> None:
    from ragkit.rag.extractive.answer_type import defined_term, definition_frame

    assert defined_term("How does the book define a tidy table?") == "table"
    assert defined_term("What is the definition of a monoid?") == "monoid"
    assert defined_term("How do I define a route?") is None  # a how-to: the asker defines it
    assert {"book", "define"} <= definition_frame("How does the book define a tidy table?")
    answer = extractive_answer("How does the book define a tidy table?", TIDY)
    assert "every column holds one variable" in answer, answer


SKEIN = passages(
    ("errors/LeakedLoom.md", "`LeakedLoom` Error > `$` and `runLoom`",
     "### `$` and `runLoom`\n\nOne common pitfall is to use the `runLoom` or `runSpool` functions with the `$` "
     "operator. This will often lead to the `LeakedLoom` error due to instantiation of thread variables. Avoid this by "
     "using brackets instead of `$`."),
)


def test_a_question_asking_what_to_use_instead_is_answered_by_the_sentence_that_names_the_replacement() -> None:
    """"What should I write instead of `$`?": the sentence that says what to use instead, not the
    one that says what goes wrong, which shares more of the question's words."""
    got = extractive_answer("I get LeakedLoom when I call runLoom using the $ operator. What should I write "
                            "instead of $?", SKEIN)
    assert got.startswith("Avoid this by using brackets instead of `$`."), got


#: a style reference, one page per property: "line-height" and "height" are two styles
HEIGHTS = passages(
    ("styles/height.md", "Height > Syntax",
     "## Syntax\n\nThe style `height` accepts two values that set the height of a widget: a number of rows or a "
     "percentage.\n\nThe two values set the height in rows and as a share of the container, respectively."),
    ("styles/line_height.md", "Line-height > Syntax > Values",
     "### Values\n\n| Value | Description |\n| --- | --- |\n| `tight` | Lines of text sit close together. |\n"
     "| `normal` | Lines of text are spaced as the terminal spaces them. |\n| `loose` | Lines of text get a blank row "
     "between them. |"),
    ("styles/line_height.md", "Line-height",
     "# Line-height\n\nThe `line-height` style sets how far apart the lines of a text are."),
)


def test_code_that_names_part_of_a_hyphenated_name_is_about_another_thing() -> None:
    from ragkit.rag.extractive.query import another_compound, hyphen_compounds

    assert hyphen_compounds("Which values does the line-height style accept?") == {"line-height"}
    assert another_compound("The style `height` accepts two values", frozenset({"line-height"})) == 1
    assert another_compound("The style `height` accepts two values", frozenset({"line-height"}), ("Height",)) == 2
    assert another_compound("Unlike `height`, `line-height` sets …", frozenset({"line-height"})) == 0
    assert another_compound("The `height` of a row", frozenset({"line-height"}), ("Line-height",)) == 0
    assert another_compound("The style `height` accepts two values", frozenset()) == 0
    answer = extractive_answer("Which values does the line-height style accept?", HEIGHTS)
    assert all(value in answer for value in ("tight", "normal", "loose")), answer


#: a how-to whose first step lists the installer's output (a chunk of its own), and a step that runs
#: the program asked about
POOLS = passages(
    ("ops/removing-a-pool.md", "Removing a default Tank install > Do not use the GUI",
     "## Do not use the GUI\n\n1. Find the 3 pools that the Tank installer creates.\nRun the installer and quit at "
     "the disk list.\n```\nPools on this server (srv0):\n  1: ZFS [Server HD] (380.00 GB, 6 datasets)\n"
     "    OS: [B ] [Server HD] server v12 [srv0s1]\n  2: ZFS [Tank Linux] (2.50 GB, 4 datasets)\n"
     "    OS: [ *] [Tank Linux] default install (server v12)\n  3: ZFS pool (System Recovery)\n```"),
    ("ops/removing-a-pool.md", "Removing a default Tank install > Do not use the GUI",
     "Note down the pool id beside the Tank Linux line.\n\n2. Delete the old pool\n```\nzpool destroy pool<num-here>\n```"),
)


def test_a_command_asked_for_by_its_program_runs_that_program() -> None:
    from ragkit.rag.extractive.values import asked_program, runs_program

    assert asked_program("When cleaning up, which zpool command gets rid of the old tank pool?") == "zpool"
    assert asked_program("What git subcommand rewrites history?") == "git"
    assert asked_program("What command do I run?") == ""
    assert runs_program("zpool destroy old-tank", "zpool") and runs_program("$ sudo zpool list", "zpool")
    assert runs_program("zfs list | zpool status", "zpool")
    assert not runs_program("Pools on this server (srv0):\n  1: TANK", "zpool")
    assert not runs_program("zpool-helper --list", "zpool")  # another program
    # the listing holds most of the question's words but runs no zpool: never the answer (here, the
    # one zpool command's step says too little of the question, so none is given)
    answer = extractive_answer("When removing a default Tank install from the server, which zpool command gets rid "
                               "of the Tank Linux ZFS pool?", POOLS)
    assert "Pools on this server" not in answer, answer
    # "Which single command …?": no code runs a program named "single", so no code is passed over
    assert "zpool destroy" in extractive_answer("Which single command deletes the old pool?", POOLS)


SAFETY = passages(
    ("health_and_safety.md", "Health and safety > Managing the risks",
     "**Managing the risks**\n\nIt is the role of the Treasurer to ensure that the risk reduction measures suggested "
     "by members on the Hazards Log are put in place, or to explain why the suggestions were not put in place.\n\n"
     "**Monitoring**\n\nThe Safety Circle will also, once a year, audit the hazards log to see if the risk reduction "
     "measures were put in place."),
)


def test_whose_job_a_thing_is_is_answered_by_a_role() -> None:
    # "Whose job is it …?" asks for whoever holds the duty: a role answers as a name does
    got = extractive_answer("Someone logged a loose cable in the hall on the Hazards Log. Whose job is it to see that "
                            "the suggested risk reduction is actually put in place?", SAFETY)
    assert "role of the Treasurer" in got, got
    from ragkit.rag.extractive.answer_type import has_answer_type

    words = frozenset({"who", "is", "responsible", "for", "the", "log"})
    assert has_answer_type("person", "The Safety Circle is responsible for the log.", words)
    assert not has_answer_type("person", "The log is kept for a year.", words)


#: a two-column paper whose reference list runs into the reply printed after it
REPLY = passages(
    ("wolf-2008.pdf", "",
     "Slatkin, M. Character displacement in finches. Ecology 61, 163–177 (1980). doi:10.1038/nature06743 Kestrel "
     "et al. reply Replying to: F. Lark & P. Crow Nature 451, doi:10.1038/nature06744 (2008). The more a bird stands to lose, the more careful that bird should be. We have shown "
     "that this principle gives rise to consistent differences between "
     "birds."),
    ("wolf-2007.pdf", "",
     "Max Kestrel, Ann Wren. Our argument is based on the trade-off between current and future breeding. Birds with high future "
     "expectations (who have much to lose) should be more risk-averse than birds with low expectations."),
)


def test_a_reference_entry_run_into_the_next_article_is_not_the_answer() -> None:
    from ragkit.rag.extractive.engine import _REFERENCE_ENTRY

    assert _REFERENCE_ENTRY.match("Slatkin, M. Character displacement in finches. Ecology 61, 163–177 (1980).")
    assert _REFERENCE_ENTRY.match("12. Wolf, M., van Doorn, G. S. Animal personalities. Nature 447, 581 (2007).")
    assert _REFERENCE_ENTRY.match("Ecology 61, 163–177 (1980). doi:10.1038/nature06743")
    assert not _REFERENCE_ENTRY.match("Smith, J. (2010) showed that birds with much to lose are careful.")
    assert not _REFERENCE_ENTRY.match("Python 3, released in 2008 (2008) broke it.")
    got = extractive_answer("In Kestrel et al.'s argument, should a bird with high expectations of future breeding "
                            "take more or fewer risks, and why?", REPLY)
    assert got.startswith("Birds with high future expectations"), got


#: a troubleshooting article: what goes wrong, why, and what to do
KIOSK = [
    Passage(1, "This article provides an explanation and fix for the Kelp 2.3 issue where the kiosk gets stuck if Tern "
               "Pay is used, with the 'Cannot read field 'token' of null' error message in the browser console.\n\n"
               "## Issue\n\nA spinner is displayed, and the page never loads. The following error is displayed in the "
               "browser console: 'Uncaught TypeError: Cannot read field 'token' of null at pay.js:1'",
            {"source": "kiosk-stuck-with-tern-pay.md", "heading": "Issue", "start": "0"}),
    Passage(2, "## Cause\n\nOne of the most common reasons for this issue is the Merchant Key not being set in the Tern "
               "Pay settings of the Kelp back office.",
            {"source": "kiosk-stuck-with-tern-pay.md", "heading": "Cause", "start": "900"}),
    Passage(3, "## Solution\n\nUnder Settings > Payments, in the Tern Pay section, check that the Merchant Key field "
               "has a value.", {"source": "kiosk-stuck-with-tern-pay.md", "heading": "Solution", "start": "1200"}),
]


def test_a_question_that_states_its_issue_is_answered_from_the_cause_and_solution() -> None:
    # the question describes the issue, as the article's Issue section and its opening line do:
    # its Cause says what is asked
    answer = extractive_answer("We run Kelp 2.3 and the kiosk just spins after a shopper picks Tern Pay; the browser "
                               "console shows \"Cannot read field 'token' of null\" from pay.js. Which Tern Pay field in "
                               "the back office is most likely empty?", KIOSK)
    assert answer.startswith("One of the most common reasons") and "Merchant Key" in answer, answer
    # asked without its case, the issue is what the question asks about
    answer = extractive_answer("What error does the browser console show when the Kelp kiosk gets stuck with Tern Pay?",
                               KIOSK)
    assert "Uncaught TypeError" in answer, answer


def test_a_verb_that_doubles_its_consonant_meets_its_plain_form() -> None:
    """"running" is "run", "stopped" "stop", "programming" "program": the consonant a verb's
    ending doubles is one. Not after one letter ("added" is "add", not "ad") nor of l, s, f or z
    ("called", "passed", "staffed", "buzzing" keep theirs, as "call", "pass", "staff" do). Before,
    "Is running the command once enough?" met no sentence that says "run the command"."""
    assert stem("running") == stem("run") == stem("runs")
    assert stem("stopped") == stem("stop") and stem("programming") == stem("program")
    assert stem("committed") == stem("commit") and stem("mapped") == stem("map")
    assert stem("added") == stem("add") and stem("staffed") == stem("staff") and stem("called") == stem("call")
    assert stem("passed") == stem("pass") and stem("buzzing") == stem("buzz") and stem("installing") == stem("install")
