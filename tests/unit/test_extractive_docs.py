"""The offline answerer on real documentation: the sentence that states the value a
question asks for (a default, a port, a version), the heading that names it, the command after a
description line, bylines and definitions, and follow-ups resolved against the previous turn.
The passages are small hand-written copies of the shapes found in MkDocs', Flask's and HTTPX's
documentation, tldr pages and papers; ``benchmarks/folders/`` holds the question sets over the
real folders."""

from __future__ import annotations

from ragkit.agent import Agent, AgentConfig, ConversationMemory
from ragkit.rag.extractive import REFUSAL, extractive_answer, parse_blocks, terms, unsaid_names, wants_list
from ragkit.rag.extractive.query import said_words
from ragkit.rag.extractive.values import gloss, holds_value, named_heading, value_question
from ragkit.rag.local import LocalProvider, follow_up_query
from ragkit.rag.passages import Passage
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation


def passages(*texts: tuple[str, str, str], page: str | None = None) -> list[Passage]:
    """Passages (source, heading, text) numbered from 1, as the search tool gives them."""
    out = []
    for n, (source, heading, text) in enumerate(texts, 1):
        meta = {"source": source, "heading": heading, "start": "0"}
        if page is not None:
            meta["page"] = page
        out.append(Passage(n, text, meta))
    return out


CONFIG = passages(
    ("configuration.md", "Configuration > Live Reloading > dev_addr",
     "### dev_addr\n\nDetermines the address used when running `mkdocs serve`. Must be of the format\n`IP:PORT`.\n\n"
     "Allows a custom default to be set without the need to pass it through the `--dev-addr`\noption every time "
     "the `mkdocs serve` command is called.\n\n**default**: `'127.0.0.1:8000'`\n"),
    ("configuration.md", "Configuration > Project information > remote_name",
     "### remote_name\n\nSet the remote name to push to when using `gh-deploy` to deploy to GitHub Pages.\n\n"
     "**default**: `origin`\n"),
    ("config.rst", "Configuration Handling > Builtin Configuration Values > PERMANENT_SESSION_LIFETIME",
     "### PERMANENT_SESSION_LIFETIME\n\nIf session.permanent is true, the cookie's expiration will be set this "
     "number of seconds in the future.\n\nDefault: timedelta(days=31) (2678400 seconds)\n\n"
     "### SESSION_COOKIE_HTTPONLY\n\nBrowsers will not allow JavaScript access to cookies marked as \"HTTP only\" "
     "for security.\n\nDefault: True\n"),
)


def test_a_default_is_answered_with_the_line_that_states_it_under_the_heading_that_names_it() -> None:
    """Before: "Allows a custom default to be set …" (it has the question's words, not the value)."""
    got = extractive_answer("What is the default value of dev_addr?", CONFIG)
    assert got == "dev_addr: default: `'127.0.0.1:8000'` [1]"
    assert extractive_answer("What is the default remote_name?", CONFIG) == "remote_name: default: `origin` [2]"
    assert "SESSION_COOKIE_HTTPONLY: Default: True [3]" == extractive_answer(
        "What is the default value of SESSION_COOKIE_HTTPONLY?", CONFIG)


def test_a_code_like_duration_is_read_out() -> None:
    """Flask's docs: "What is the default value of PERMANENT_SESSION_LIFETIME?" must say 31 days."""
    got = extractive_answer("What is the default value of PERMANENT_SESSION_LIFETIME?", CONFIG)
    assert "31 days" in got and got.startswith("PERMANENT_SESSION_LIFETIME: Default: timedelta(days=31)")
    assert gloss("timedelta(hours=1)") == "timedelta(hours=1) (1 hour)"
    assert gloss("timedelta(days=2) (2 days)") == "timedelta(days=2) (2 days)"


SERVERS = passages(
    ("server.rst", "Development Server > Command Line",
     "## Command Line\n\nThe flask run CLI command is the recommended way to run the development server.\n\n"
     "If another program is already using port 5000, you'll see an OSError when the server tries to start.\n"),
    ("deploying/waitress.rst", "Waitress > Running",
     "## Running\n\nThe only required argument to waitress-serve tells it how to load your Flask application.\n\n"
     "```text\n$ waitress-serve --host 127.0.0.1 hello:app\n\nServing on http://127.0.0.1:8080\n```\n\n"
     "The --host option binds the server to local 127.0.0.1 only.\n"),
)


def test_a_value_that_is_a_part_of_the_identifier_asked_about_is_still_a_value() -> None:
    """Flask's SESSION_COOKIE_NAME defaults to 'session': before, the value was taken for a word of
    the question, and the neighbouring setting's "Not set by default" answered."""
    cookies = passages(
        ("config.rst", "Configuration Handling > Builtin Configuration Values > SESSION_COOKIE_NAME",
         "### SESSION_COOKIE_NAME\n\nThe name of the session cookie. Can be changed in case you already have a "
         "cookie with the same name.\n\nDefault: 'session'\n"),
        ("config.rst", "Configuration Handling > Builtin Configuration Values > SESSION_COOKIE_DOMAIN",
         "### SESSION_COOKIE_DOMAIN\n\nThe value of the Domain parameter on the session cookie. If not set, "
         "browsers will only send the cookie to the exact domain it was set from.\n\nDefault: None\n\n"
         "Changed in version 2.3: Not set by default, does not fall back to SERVER_NAME. Changing this requires "
         "changing SESSION_COOKIE_NAME as well.\n"),
    )
    got = extractive_answer("What is the default value of SESSION_COOKIE_NAME?", cookies)
    assert got.startswith("SESSION_COOKIE_NAME: Default: 'session' [1]")
    said = said_words("What is the default value of SESSION_COOKIE_NAME?")
    assert holds_value(None, "Default: 'session'", said, default=True)
    assert not holds_value(None, "Default: `SESSION_COOKIE_NAME`", said, default=True)
    assert not holds_value(None, "Pass `--dev-addr` by default.", said_words("What is the default dev_addr?"),
                           default=True)


def test_defaults_to_with_a_colon_states_the_value_after_it() -> None:
    """A Sphinx option's description renders ``This defaults to: ``auto`` `` as "This defaults to: auto":
    a bare word after "defaults to:" is the default, as after "Default:"."""
    said = said_words("If I don't pass --workers, how many processes does Tern start?")
    assert holds_value(None, "This defaults to: auto", said, default=True)
    assert not holds_value(None, "This defaults to: workers", said, default=True)
    options = passages(
        ("user/options.rst", "Options > --workers",
         "### --workers\n\n--workers=<n>\n\nSpecify the number of processes that Tern will start to build pages "
         "in parallel.\n\nThis defaults to: auto\n\nCommand-line example:\n\n```\ntern --workers=8 site/\n```\n"),
    )
    got = extractive_answer("If I don't pass --workers, how many processes does Tern start?", options)
    assert "This defaults to: auto" in got


def test_a_port_is_found_in_the_console_output_of_the_page_the_question_names() -> None:
    """Flask's docs: "What port does Waitress listen on by default?" cited the development server's
    page (port 5000) before; the Waitress page shows its port only in a console block."""
    got = extractive_answer("What port does Waitress listen on by default?", SERVERS)
    assert "8080" in got and "[2]" in got and "[1]" not in got and "5000" not in got
    assert got.startswith("Waitress > Running: `Serving on http://127.0.0.1:8080`")


TLDR = passages(
    ("git-remote.md", "git remote",
     "# git remote\n\n> Manage set of tracked repositories (\"remotes\").\n\n- List existing remotes with their "
     "names and URLs:\n\n`git remote {{[-v|--verbose]}}`\n\n- Change the URL of a remote (use `--add` to keep the "
     "existing URL):\n\n`git remote set-url {{remote_name}} {{new_url}}`\n\n- Add a remote:\n\n"
     "`git remote add {{remote_name}} {{remote_url}}`\n\n- Remove a remote:\n\n`git remote remove {{remote_name}}`\n"),
    ("tar.md", "tar",
     "# tar\n\n> Archiving utility.\n\n- [c]reate a g[z]ipped archive and write it to a [f]ile:\n\n"
     "`tar czf {{path/to/target.tar.gz}} {{path/to/file1 path/to/file2 ...}}`\n\n"
     "- Lis[t] the contents of a tar [f]ile [v]erbosely:\n\n`tar tvf {{path/to/source.tar}}`\n"),
)


def test_the_command_after_a_description_line_answers_a_how_to() -> None:
    """A command reference: "- Description:" then the command on a line of its own. Before: three
    other descriptions of the page, the wrong command, no "git remote add"."""
    got = extractive_answer("How do I add a git remote?", TLDR)
    assert got == "git remote: Add a remote: [1]\n\n```\ngit remote add {{remote_name}} {{remote_url}}\n```"
    got = extractive_answer("How do I list the contents of a tar file?", TLDR)  # "list" is a verb here
    assert "tar tvf" in got and "List the contents of a tar file verbosely:" in got  # mnemonics read as words
    assert wants_list("How do I list the contents of a tar file?") == (False, False)
    assert [b.kind for b in parse_blocks(TLDR[1].text)][-2:] == ["item", "code"]


COMPLETION = """# Ferry timetable tool

## Shell completion

Completion works by saving a script and running it when your shell starts.

Bash:
Save the script somewhere:

```console
_FERRY_COMPLETE=bash_source ferry > ~/.ferry-complete.bash
```

Z shell:
Save the script somewhere:

```console
_FERRY_COMPLETE=zsh_source ferry > ~/.ferry-complete.zsh
```

fish:
Save the script in `~/.config/fish/completions`:

```console
_FERRY_COMPLETE=fish_source ferry > ~/.config/fish/completions/ferry.fish
```
"""


def test_a_description_line_is_chosen_by_the_words_of_the_command_it_introduces() -> None:
    """Three shells' lines, two of them the same words: the question's shell is only in the
    command under one of them. Before: the fish line, whose own words were the most specific."""
    got = extractive_answer("I use zsh. What command do I run to produce the ferry tab-completion script for my shell?",
                            passages(("cli.md", "Ferry timetable tool > Shell completion", COMPLETION)))
    assert "zsh_source" in got and "fish_source" not in got


def test_a_named_command_asked_for_is_answered_with_the_command() -> None:
    """"What ssh command does the guide show …?" asks for a command as "How do I …?" does.
    Before: the two sentences after the command, without it."""
    text = ("## Remote debugging\n\nStart the gauge service with the inspector on the harbour server.\n\n"
            "Then, on your own machine, open a tunnel to it:\n\n```bash\nssh -L 7001:localhost:7000 crew@quay.example.org\n```\n\n"
            "This opens an ssh tunnel where a connection to port 7001 on your machine is forwarded to port 7000 "
            "on quay.example.org. You can now attach your debugger to localhost:7001, as if the service ran locally.\n")
    got = extractive_answer("The gauge service runs on a remote server. What ssh command does the guide show for "
                            "forwarding a local port so my debugger can attach?",
                            passages(("debugging.md", "Gauge service > Remote debugging", text)))
    assert "ssh -L 7001:localhost:7000" in got


def test_an_invocation_asked_for_is_a_command_not_a_version() -> None:
    """"Which tide version invocation …?" asks for a command of the ``tide version`` tool, not for a
    version. Before: refused, for an answer without a version number."""
    text = ("## Updating\n\nYou can chain several segment updates with a comma. For example, to release a preview "
            "of your project's first major version, you could do:\n\n```console\n$ tide version major,rc\nOld: 0.2.0\n"
            "New: 1.0.0rc0\n```\n\nTo release the final version:\n\n```console\n$ tide version release\n"
            "Old: 1.0.0rc0\nNew: 1.0.0\n```\n")
    got = extractive_answer("We are at 0.2.0 and want a release candidate of the first major version in one step. "
                            "Which tide version invocation does that?", passages(("version.md", "Versioning > Updating", text)))
    assert "tide version major,rc" in got
    assert value_question("Which tide version invocation does that?") == (False, None)


def test_a_follow_up_is_searched_and_answered_as_what_the_earlier_question_named() -> None:
    """Before: "And how do I remove it?" after a git-remote question was searched as is and refused."""
    assert follow_up_query("And how do I remove it?", ["How do I add a git remote?"]) == "How do I remove a git remote?"
    assert follow_up_query("How do I delete a branch?", ["How do I add a git remote?"]) == "How do I delete a branch?"
    queries: list[str] = []

    @tool
    def search_knowledge_base(query: str, top_k: int = 5) -> ToolOutput:
        """Search the knowledge base for passages relevant to the query."""
        queries.append(query)
        cites = [Citation(number=p.number, source=p.meta["source"], chunk_id=str(p.number), heading=p.meta["heading"],
                          score=1.0, text=p.text) for p in TLDR[:1]]
        return ToolOutput(content="(passages attached)", citations=cites)

    agent = Agent(LocalProvider(), tools=[search_knowledge_base],
                  config=AgentConfig(memory=ConversationMemory(max_messages=20)))
    assert "git remote add" in agent.run("How do I add a git remote?").content
    answer = agent.run("And how do I remove it?").content
    assert queries[-1] == "How do I remove a git remote?"
    assert "git remote remove {{remote_name}}" in answer and answer.startswith("git remote: Remove a remote: [1]")


PAPERS = passages(
    ("raft.pdf", "",
     "In Search of an Understandable Consensus Algorithm\nDiego Ongaro and John Ousterhout\nStanford University\n"
     "Abstract\nRaft is a consensus algorithm for managing a replicated log. It produces a result equivalent to "
     "Paxos, and it is as efficient as Paxos."),
    ("harvest.pdf", "",
     "We assume that clients make queries to servers, in which case there are at least two metrics for correct "
     "behavior: yield, which is the probability of completing a request, and harvest, which measures the "
     "fraction of the data reflected in the response. Yield is the common metric."),
    page="1",
)


def test_a_byline_answers_who_wrote_a_paper_and_appositions_define_terms() -> None:
    assert extractive_answer("Who wrote the Raft paper?", PAPERS) == "Diego Ongaro and John Ousterhout [1]"
    got = extractive_answer("What are yield and harvest?", PAPERS)
    assert got.startswith("We assume that clients") and "probability of completing a request" in got
    assert "[2]" in got


def test_value_questions_and_what_holds_a_value() -> None:
    assert value_question("What is the default value of dev_addr?") == (True, None)
    assert value_question("What port does Waitress listen on by default?") == (True, "port")
    assert value_question("Since which version are Setext headers supported?") == (True, "version")
    assert value_question("Who founded the observatory?") == (False, None)
    # "the latest I can …" names no product: "I" is no release's name
    assert value_question("What penalty will I get, and what is the latest I can still hand it in?") == (False, None)
    assert value_question("What is the latest Harbour release?") == (True, "version")
    none: frozenset[str] = frozenset()
    assert holds_value("port", "Serving on http://127.0.0.1:8080", none)
    assert not holds_value("port", "The --host option binds to local 127.0.0.1 only.", none)
    assert holds_value(None, "default: `origin`", none, default=True)
    # a literal counts for a default question only where a default is declared
    assert not holds_value(None, "Allows a custom default to be set with `--dev-addr`.", frozenset({"dev", "addr"}),
                           default=True)
    assert named_heading("PERMANENT_SESSION_LIFETIME", "What is the default of PERMANENT_SESSION_LIFETIME?")
    assert not named_heading("Default", "What is the default theme?")


def test_an_unanswerable_value_question_is_still_refused() -> None:
    assert extractive_answer("What port does the Kubernetes ingress use?", SERVERS) == REFUSAL


# a paper's page as its text layer gives it: a figure's labels ("Tenant A", "Quarry", "coordinator")
# one per line, right after the sentence that answers
FIGURE = passages(
    ("quarry.pdf", "",
     "3.2 Overview\nQuarry consists of a coordinator that tracks the disks of every node, and tenants that store "
     "data on them.\nThe coordinator divides capacity among tenants using leases. Each lease names a disk and a "
     "quota. The coordinator decides how many leases to grant each tenant\nTenant A\nJob 1 Job 2\nQuarry\n"
     "coordinator\n<d1, 4tb> 1 <t1, 2tb>\nFigure 3: Lease example."),
    ("quarry.pdf", "",
     "Quarry decides how much capacity to offer each tenant, based on a policy such as fair division, while "
     "tenants decide which disks to accept. Each tenant running on Quarry divides its data into shards."),
    page="3",
)


def test_a_run_of_figure_labels_heads_no_other_subject() -> None:
    blocks = parse_blocks(FIGURE[0].text)
    assert [(b.text, b.label) for b in blocks if b.kind == "heading"] == [
        ("3.2 Overview", False), ("Tenant A", True), ("Quarry", True)]
    # "Quarry", in a figure's labels after the sentence that answers, is not taken for the heading
    # of another section (another subject) of the passage
    answer = extractive_answer("How does Quarry divide capacity among tenants?", FIGURE)
    assert "divides capacity among tenants using leases" in answer
    # a title line followed by its text (past its subheadings) is a heading; a Markdown one always is
    assert not any(b.label for b in parse_blocks("POWER AND SUPPLIES\nElectricity\nThe island is off the grid."))
    assert not parse_blocks("# Quarry\nTenant A\nJob 1\n")[0].label


UPLOADS = passages(
    ("responses.md", "Responses",
     "# Responses\n\n### FileResponse\n\nSends files in the response.\n\n* `disposition` - will be set in the "
     "`Content-Disposition` header. Can be \"attachment\" (default) or \"inline\".\n\nThe `Accept-Ranges` header is "
     "set when the file exists.\n"),
    ("requests.md", "Requests",
     "# Requests\n\n### Uploads\n\nUploaded files are sent as multipart form data.\n\n"
     "Signature: `request.uploads(max_files=500, max_part_size=2048)`\n\n"
     "You can limit the number of files with `max_files`:\n\n```python\nasync with request.uploads(max_files=50):\n    ...\n```\n"),
)


def test_a_documented_signature_states_its_keyword_defaults() -> None:
    """"How many files does request.uploads() accept at most by default?": the documented
    signature's ``max_files=500`` is the default, not another page's "(default)" of another setting,
    nor the example's ``max_files=50``."""
    got = extractive_answer("How many files does request.uploads() accept at most by default?", UPLOADS)
    assert got.startswith("Signature: `request.uploads(max_files=500") and "[2]" in got


def test_a_release_written_with_a_v_is_the_release_the_question_gives() -> None:
    """A release's heading, "v2.3.8 (2017-02-17)", holds no version the question does not say
    when it asks about 2.3.8 (nor "3.7" when it says "v3.7"): before, the "v" made it a new
    version, and the heading answered which Go version the release was built with."""
    said = said_words("Which Go version was tidectl 2.3.8 compiled with?")
    assert not holds_value("version", "v2.3.8 (2017-02-17)", said)
    assert holds_value("version", "Compile with Go 1.7.5.", said)
    said = said_words("In which patch release was the --max-tides flag's removal pushed back from v3.7 to v3.8?")
    assert not holds_value("version", "Remove flag `--max-tides` in 3.8 rather than 3.7", said)
    assert holds_value("version", "v3.6.8 (2026-02-13)", said)


def test_a_release_written_with_its_zero_parts_is_the_release_the_question_gives() -> None:
    """"v0.10.0 (January 2020)" is the question's "0.10", so the heading holds no new version;
    "0.10.1" and "3.6" are new."""
    said = said_words("After tidekit dropped Python 2 in 0.10, which Python version does it need?")
    assert not holds_value("version", "v0.10.0 (January 2020)", said)
    assert holds_value("version", "v0.10.1 (March 2020)", said)
    assert holds_value("version", "Tidekit is now strictly compatible with Python 3.6+.", said)


KEYED = ("## lanterns\n\n- `lamp_file_name`:\n  - Customize the name of the lamp file. Defaults to `lamps.go`.\n"
         "- `wick_limit`:\n  - The number of wicks a lantern function takes as arguments. To always pass a wick "
         "struct, set this to `0`. Defaults to `1`.\n- `rename`:\n  - Customize the names of the lantern fields.\n")


def test_a_key_item_and_the_one_item_nested_under_it_are_one_item() -> None:
    """A configuration reference lists each key as an item, its description nested under it.
    Before: the description was an item of its own, and the answer never named the key."""
    items = [b.text for b in parse_blocks(KEYED) if b.kind == "item"]
    assert items[1] == ("`wick_limit`: The number of wicks a lantern function takes as arguments. To always pass "
                        "a wick struct, set this to `0`. Defaults to `1`.")
    assert len(items) == 3
    steps = [b.text for b in parse_blocks("Install it:\n\n- On Linux:\n  - run `apt install lamp`\n"
                                          "  - then `lamp init`\n- On Mac:\n  - run `brew install lamp`\n")
             if b.kind == "item"]
    assert "run `apt install lamp`" in steps  # a key with two items under it keeps them apart
    got = extractive_answer("I want lantern functions to always take a wick struct, even for one argument. Which "
                            "setting controls that?", passages(("config.md", "lanterns", KEYED)))
    assert "wick_limit" in got, got


def test_a_sentence_two_files_write_is_cited_from_the_one_ranked_first() -> None:
    """The guide's paragraph is copied into the change log, under a heading that names the command;
    the guide writes a link over a line break. Before: the link stayed in the guide's sentence, the
    change log's copy scored higher, and the answer cited the change log."""
    guide = ("## `inspect` - Checking lanterns\n\n`harbour inspect` runs lanterns through a set of checks. Checks "
             "consist of a name, message, and a [Lantern Rule Language\n(LRL)](https://example.org/lrl) expression.")
    log = ("## harbour inspect\n\n`harbour inspect` runs lanterns through a set of checks. Checks consist of a name, "
           "message, and a Lantern Rule Language (LRL) expression.")
    assert [b.text for b in parse_blocks(guide)][1].endswith("and a Lantern Rule Language (LRL) expression.")
    got = extractive_answer("What rule language are harbour inspect checks written in?",
                            passages(("howto/inspect.md", "`inspect` - Checking lanterns", guide),
                                     ("changelog.md", "Changelog > 1.19.0 > harbour inspect", log)))
    assert "Lantern Rule Language" in got and "[1]" in got and "[2]" not in got, got


def test_an_item_that_ends_with_a_colon_is_answered_with_the_items_nested_under_it() -> None:
    """A release note's item introduces the names it removed in a nested list. Before: the item
    alone, cut at its colon."""
    notes = ("# v2.4.0 (March 3, 2026)\n\n## Breaking changes\n\n- Removed expired lantern option names (#412):\n"
             "  - Option `wick_size` in `harbour.lamp()`\n  - Options `glass_tint` and `oil_kind` in `harbour.lantern()`"
             "\n- Dropped support for Python 3.9.\n")
    got = extractive_answer("Which expired deprecated lantern option names were finally removed in 2.4.0?",
                            passages(("v2.4.0.md", "v2.4.0 (March 3, 2026) > Breaking changes", notes)))
    assert "wick_size" in got and "glass_tint" in got and "oil_kind" in got, got
    assert "Python 3.9" not in got, got


def test_an_identifier_at_the_end_of_a_dotted_path_is_said_whole() -> None:
    """"harbour.lamps.TIDE_TABLES" says ``TIDE_TABLES``. Before: only its words counted, so a
    question that names the identifier found it said nowhere, and the answer was withdrawn."""
    assert "tide_tables" in terms("The harbour.lamps.TIDE_TABLES dictionary")
    notes = passages(("v0.11.0.md", "v0.11.0 > Deprecations",
                      "## Deprecations\n\n- The harbour.lamps.TIDE_TABLES dictionary has been moved to "
                      "harbour.tides.TIDE_TABLES. (#2095)"))
    question = "Where did the TIDE_TABLES dictionary move to in harbour 0.11.0?"
    assert unsaid_names(question, notes) == []
    assert "harbour.tides.TIDE_TABLES" in extractive_answer(question, notes)


def test_a_sentence_that_names_two_items_after_its_colon_is_the_list_asked_for() -> None:
    """The proposal's summary names the two props after a colon; a list further on mentions one of
    them. Before: that other list, which names one prop among steps."""
    got = extractive_answer(
        "Which callback props did the proposal on measuring tide durations add to the Gauge component?",
        passages(("0139-gauge-tide-durations.md", "Summary",
                  "# Summary\n\nThis proposal adds two new callback props to `<Gauge>` components: `onTide` and "
                  "`onPostTide`. These callbacks receive how much time was spent in the most recent tide."),
                 ("0139-gauge-tide-durations.md", "Detailed design",
                  "# Detailed design\n\nMeasuring tides and calling `onTide` is fairly straight forward:\n\n"
                  "- During the tide phase:\n  - The harbour will use the Gauge timer to measure the duration.\n"
                  "  - The harbour will call Gauge `onTide` props with accumulated durations.\n"),
                 ))
    assert "`onTide` and `onPostTide`" in got and "Detailed design" not in got, got


def test_a_sentence_that_names_the_items_outscores_a_list_of_other_things() -> None:
    """The guide names the subcommands in a sentence (the last one in backticks); the change log's
    best sentence sits over a list of unrelated features. Before: that list."""
    got = extractive_answer(
        "Which harbour subcommands do the docs recommend running in a CI/CD pipeline?",
        passages(("howto/ci-cd.md", "Using harbour in CI/CD",
                  "# Using harbour in CI/CD\n\nIf your project has more than a single developer, we suggest running "
                  "`harbour` as part of your CI/CD pipeline. The four subcommands you'll want to run are `moor`, "
                  "`inspect`, `verify` and `sail`\n\n`harbour moor` ensures that your lanterns are up to date."),
                 ("changelog.md", "Changelog > 1.19.0 > Release notes",
                  "## Release notes\n\nWith the addition of `harbour moor` and `harbour inspect`, we encourage users "
                  "to run harbour subcommands in your CI/CD pipelines.\n\n### Features\n\n- Improve default names "
                  "for lanterns (#2366)\n- (cmd/harbour) Add the inspect subcommand (#2344)\n- Add support for tides "
                  "(#2384)\n"),
                 ))
    assert "Features" not in got and "#2366" not in got, got


def test_a_line_that_only_repeats_the_question_still_brings_its_list() -> None:
    """"What is in a welcome parcel:" says nothing the question does not, but leads the list that
    answers it. Before: the line was never a candidate, and other sentences of the section answered."""
    got = extractive_answer(
        "What is included in a welcome parcel?",
        passages(("perks/celebrate.md", "New deckhands",
                  "## New deckhands\n\nThe crew office is responsible for sending welcome parcels and uses a vendor "
                  "named Lanternworks. After a new deckhand signs their contract, the crew office sends an email with "
                  "a link to order it.\n\nWhat is in a welcome parcel:\n\n- Oilskin\n- Socks\n- Compass\n- Tin mug\n\n"
                  "#### How to order\n")))
    assert all(item in got for item in ("Oilskin", "Socks", "Compass", "Tin mug")), got


def test_a_participle_and_its_date_is_a_statement_not_a_title() -> None:
    """A change log writes each release's date as "Released 2025-09-01" under the release's
    heading. Before: the line was read as a title, and a title that shares little of the question
    was no answer: a refusal."""
    assert [b.kind for b in parse_blocks("## 1.30.0\n\nReleased 2025-09-01\n\n### Bug fixes\n")][:2] == ["heading", "prose"]
    assert [b.kind for b in parse_blocks("Annual Report 2022\n\nThe harbour grew.")][0] == "heading"
    log = passages(("changelog.md", "Changelog > [1.30.0](https://example.org/harbour/releases/tag/v1.30.0)",
                    "## [1.30.0](https://example.org/harbour/releases/tag/v1.30.0)\nReleased 2025-09-01\n\n### Bug fixes\n"
                    "\n- Fixed the tide reader (#4012)\n"),
                   ("changelog.md", "Changelog > [1.29.0](https://example.org/harbour/releases/tag/v1.29.0)",
                    "## [1.29.0](https://example.org/harbour/releases/tag/v1.29.0)\nReleased 2025-04-14\n"))
    got = extractive_answer("On what date was harbour 1.30.0 released?", log)
    assert "2025-09-01" in got and "2025-04-14" not in got, got


def test_a_date_asked_for_is_read_from_the_underlined_heading_above_the_sentence() -> None:
    """A release note read as plain text: its heading is underlined, and holds the date the
    sentence under it does not. Before: the underline was text, the heading a sentence without
    a verb, and the answer a refusal."""
    notes = (".. _whatsnew_0100:\n\nv0.1.0 (April 20, 2015)\n-----------------------\n\nThis is the first official "
             "release of the harbour-tides project.\nAs such, a \"What's new\" document is a little hard to write.\n\n"
             "API changes\n~~~~~~~~~~~\n\n* Remove ``hb_`` from module names.\n")
    assert [(b.kind, b.text) for b in parse_blocks(notes)][1] == ("heading", "v0.1.0 (April 20, 2015)")
    got = extractive_answer("When did harbour-tides make its first official release?",
                            passages(("v0.1.0.txt", "", notes),
                                     ("v0.2.0.txt", "", "v0.2.0 (May 2, 2016)\n--------------------\n\n"
                                                        "This release adds tide tables.")))
    assert "April 20, 2015" in got, got


def test_called_in_what_is_it_called_is_no_word_to_match() -> None:
    """"What is … called?" asks for a name: a sentence that says "Calling …" is not nearer for it.
    Before: the deprecation of a call outscored the line that gives the new name."""
    notes = ("## Breaking changes\n\n- Calling harbour.fleet.Fleet.tide_temp() without setting the fleet's tide "
             "parameters is now an error.\n- Moved functions related to lanterns from fleet.py to lantern.py. "
             "Functions are renamed as follows:\n  - harbour.fleet.oillamp is now harbour.lantern.oil()\n"
             "  - harbour.fleet.gaslamp is now harbour.lantern.gas()\n")
    got = extractive_answer("What is the old harbour.fleet.oillamp function called after the 0.9.0 reorganisation?",
                            passages(("v0.9.0.md", "v0.9.0 > Breaking changes", notes)))
    assert "harbour.lantern.oil()" in got and "tide_temp" not in got, got


def test_a_which_answer_names_the_literal_its_section_is_headed_by() -> None:
    """Each annotation has a section headed by the annotation alone; its sentence never repeats it.
    Before: the sentence alone, which does not say which annotation."""
    doc = ("## `:moorrows`\n\nThe generated method will return the number of moored boats from the result returned "
           "by MoorContext.")
    got = extractive_answer("Which query annotation makes the generated method return the number of moored boats?",
                            passages(("reference/query-annotations.md", "Query annotations > `:moorrows`", doc)))
    assert got.startswith("`:moorrows`: The generated method"), got


def test_a_name_only_the_file_name_gives_is_no_name_missing_from_the_passages() -> None:
    """A menu's text never writes the inn's name; its file is named for it. Before: the name counted
    as said nowhere and the answer was refused, though the search ranked the right page first."""
    menu = ("M A I N S THE HARBOUR PIE £14.0 smoked haddock, leeks, mash - Add cheese £1.5 THE GARDEN STACK £12.0 "
            "Greenfield Farm ® burger patty, toasted bun, pickles, slaw, skin-on fries")
    got = extractive_answer("Which brand of patty does The Anchorage use in its garden burger?",
                            passages(("the-anchorage-food-menu.pdf", "", menu), page="2"))
    assert "Greenfield Farm" in got, got



def test_a_which_setting_question_is_answered_by_a_name_in_code_not_by_a_version() -> None:
    """"Which config setting …?" asks for a name in code: the sentence that gives the release it
    came in ("From Harbour version 2.28 onwards …") holds no such name; the command after it does.
    Before: the version counted as the literal asked for, and that sentence was the answer."""
    guide = ("=== Your default branch name\n\nBy default Harbour will create a branch called master when you "
             "create a new repository with harbour init. From Harbour version 2.28 onwards, you can set a "
             "different name for the initial branch.\n\nTo set main as the default branch name do:\n\n"
             "```console\n$ harbour config --global init.defaultBranch main\n```\n")
    got = extractive_answer("Which config setting changes the name of the initial branch that harbour init creates?",
                            passages(("first-time-setup.asc", "Getting started > Your default branch name", guide)))
    assert "init.defaultBranch" in got, got



def test_a_name_in_code_is_what_a_which_function_or_setting_question_asks_for() -> None:
    """One function, setting, class … asks for a name in code, which a version or a number is not;
    several ("Which functions …?") ask for a list, and "command-line program" for no name."""
    assert value_question("Which function do I call to define a lazily loaded tide component?") == (True, "name")
    assert value_question("Which config setting changes the initial branch's name?") == (True, "name")
    assert value_question("Which new functions did 5.5 add to the tide library?") != (True, "name")
    assert value_question("What command-line program checks my code against the style guide?") == (False, None)
    said = said_words("Which config setting changes the initial branch's name?")
    assert not holds_value("name", "From Harbour version 2.28 onwards, you can set another name.", said)
    for line in ("$ harbour config --global init.defaultBranch main", "Use `branchName` for that.",
                 "Call defineLazyTide.", "Set TIDE_BRANCH_NAME.", "Pass --initial-branch to it."):
        assert holds_value("name", line, said), line


def test_a_close_sentence_that_holds_the_value_answers_before_a_refusal() -> None:
    """The best sentence describes the pool and holds no value; the parameter's line, in a passage
    ranked far below, holds one and scores nearly as well. Before: refused for want of a value."""
    docs = passages(
        ("advanced/pool.md", "Connection pools > Pool operations logging",
         "2025-09-20 11:02:41,729 INFO tidepool: returning connection to 'pool-1'"),
        ("advanced/pool.md", "Connection pools",
         "# Connection pools\n\nA connection pool is an object managing a set of connections; it opens a new one when "
         "every connection is in use. Because the time to establish a new connection can be relatively long, keeping "
         "connections open can reduce latency."),
        ("news.md", "tidepool release notes > tidepool 3.1.8",
         "### tidepool 3.1.8\n\n- Enforce connections' max_lifetime on check() (#482)."),
        ("advanced/pool.md", "Connection pools > Null connection pools",
         "The tidepool 3.1 package introduces the NullConnectionPool class. This class has the same interface of the "
         "ConnectionPool class but doesn't create any connection on start."),
        ("news.md", "tidepool release notes > tidepool 3.1.0",
         "## tidepool 3.1.0\n\n- Add null-pool (#148).\n- Add ConnectionPool.open() and open parameter to the pool init."),
        ("install.md", "Installation > Installing the connection pool",
         "## Installing the connection pool\n\nThe tidepool connection pools are distributed in a separate package."),
        *[("news.md", f"tidepool release notes > tidepool 3.0.{i}",
           f"### tidepool 3.0.{i}\n\n- Fix a crash of the sweeper thread at shutdown (#{300 + i}).") for i in range(10)],
        ("api/pool.md", "tidepool > The ConnectionPool class > ConnectionPool",
         "- max_lifetime (float, default: 1 hour): The maximum lifetime of a connection in the pool, in seconds. "
         "Connections used for longer get closed and replaced by a new one."),
    )
    got = extractive_answer("If I don't configure anything, how old can a connection in a tidepool pool get before "
                            "the pool retires it and opens a new one?", docs)
    assert "1 hour" in got, got


def test_a_release_written_only_as_another_products_is_not_the_one_asked_about() -> None:
    """"Harbour 3.0" does not exist; the notes write 3.0 only as Astropy's. Before: answered with
    the 0.8 notes' Python version, the release number counting as present."""
    notes = [("v0.8.rst", "0.8 (Sep 23, 2018) > What's new?",
              "E.g. the Harbour v0.8 environment uses Python 3.6, Numpy 1.15 and Astropy 3.0."),
             ("v0.14.rst", "0.14 (Sep 30, 2019)", "Following pig-013 the support for Python 3.5 was dropped with Harbour v0.14.")]
    asked = "What is the minimum Python version required by Harbour 3.0?"
    assert extractive_answer(asked, passages(*notes)) == REFUSAL
    released = passages(("v3.0.rst", "3.0 (May 2, 2027)", "Harbour 3.0 requires Python 3.11 or later."), *notes)
    assert "3.11" in extractive_answer(asked, released)


def test_a_release_written_only_in_another_products_requirement_is_not_the_one_asked_about() -> None:
    """"Harbour 1.13" is not out; the notes write 1.13 only in a requirement on scipy. Before:
    answered with another release's date."""
    notes = [("v1.12.rst", "Version 1.12.0 (2026-04-07) > Dependencies",
              "Updated minimums for:\n\n- Core dependency `scipy >= 1.13`\n- Optional dependency `pandas >= 2.2`"),
             ("v1.9.rst", "Version 1.9.0 (2024-12-18)", "Harbour 1.9.0 was released on 2024-12-18, by Ada Quill.")]
    asked = "On what date is Harbour 1.13 planned to be released?"
    assert extractive_answer(asked, passages(*notes)) == REFUSAL
    released = passages(("v1.13.rst", "Version 1.13.0", "Harbour 1.13 is planned to be released on 2026-11-30."), *notes)
    assert "2026-11-30" in extractive_answer(asked, released)


def test_a_setting_in_code_is_read_with_the_comment_above_it() -> None:
    """A Dockerfile's "ENV LANTERN_REPORT=off" says in code what the comment above it says in
    words ("# turn off the usage report"): the value question is answered by the line."""
    page = [Passage(1, "# Containers\n\nThe image is built in two stages: the first installs Lantern, the second "
                       "copies the result.\n\n```dockerfile\nFROM python:3.12 AS build\nRUN pip install lantern\n"
                       "# turn off the usage report\nENV LANTERN_REPORT=off\nCOPY site/ /srv/site\n```\n",
                    {"source": "containers.md", "heading": "Containers", "start": "0"})]
    answer = extractive_answer("Which environment variable turns off the usage report?", page)
    assert "LANTERN_REPORT" in answer


def test_a_which_answer_names_the_plain_identifier_its_section_is_headed_by() -> None:
    """A settings page heads each setting by its name written plain ("### ropeLocker"), not as
    code; its sentences never repeat it. Before: the sentences alone, which do not say which
    setting. A heading in plain words labels nothing."""
    doc = ("### ropeLocker\n\nAdded in: v4.2.0\n\nLets the winch run against a spool that lives on a read-only "
           "drum, for example a sealed reel.")
    got = extractive_answer("Our spool sits on a read-only drum. Which setting lets the winch run against it?",
                            passages(("settings/winch.md", "Winch > ropeLocker", doc)))
    assert got.startswith("ropeLocker: Lets the winch run"), got
    plain = doc.replace("### ropeLocker", "### Rope locker")
    got = extractive_answer("Our spool sits on a read-only drum. Which setting lets the winch run against it?",
                            passages(("settings/winch.md", "Winch > Rope locker", plain)))
    assert got.startswith("Lets the winch run"), got


def test_which_day_is_answered_by_the_day_of_the_month_the_question_names() -> None:
    """The question names the month and year ("In June 2020 …"); the day is what it asks. Before,
    "expired … on June 4, 2020" held no date the question did not say, and an earlier incident's
    "fixed on February 29, 2020" was quoted instead."""
    audit = ("The issue was confirmed and fixed on February 29, 2020, and the harbour halted lamp issuance until a "
             "fix was deployed.\n\nThe harbour disclosed an incident on June 8, 2020, in which its lamp signing "
             "certificate expired four days prior on June 4, 2020, and buoys checking their lamps failed.")
    got = extractive_answer("In June 2020 our buoys failed their lamp checks. On which day had the harbour's lamp "
                            "signing certificate expired?", passages(("audit-2020.pdf", "", audit)))
    assert "June 4, 2020" in got and "February" not in got, got


def test_a_sentence_two_reports_share_is_quoted_once_however_its_words_are_spaced() -> None:
    """Two audit reports repeat a paragraph; one PDF's text layer splits words ("inci dent").
    Before, both copies were quoted, as two sentences."""
    text = "The harbour disclosed an {} on June 8, 2020, in which its lamp certificate expired on June 4, 2020."
    got = extractive_answer("On which day had the harbour's lamp certificate expired?",
                            passages(("report-a.pdf", "", text.format("incident")),
                                     ("report-b.pdf", "", text.format("inci dent"))))
    assert got.count("expired on June 4") == 1, got


def test_an_indented_block_of_prompted_commands_is_code() -> None:
    """"    > conda update conda": four spaces in, after a prompt, is a command, not a line of prose
    (Markdown's indented code block). Before, its words read as prose and the sentence that
    introduces it was quoted alone."""
    doc = ("After installing be sure to check for updates before going on. With the Tidekit package this is done "
           "by executing the following two commands in a terminal window:\n\n    > tide update tide\n"
           "    > tide update tidekit\n\nTidekit includes a navigator that manages the update process.")
    assert [b.kind for b in parse_blocks(doc)] == ["prose", "code", "prose"]
    got = extractive_answer("I've just installed Tidekit. Which commands should I run in a terminal to check for "
                            "updates?", passages(("getting-started.md", "Installing", doc)))
    assert "> tide update tide\n> tide update tidekit" in got, got
