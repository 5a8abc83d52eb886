"""The offline answerer reads the search tool's structured citations; the passage text format is
defined once (formatter and parser agree)."""

from __future__ import annotations

import pytest

from ragkit.agent import Agent
from ragkit.rag.extractive import REFUSAL, extractive_answer, parse_blocks
from ragkit.rag.local import LocalProvider
from ragkit.rag.passages import Passage, format_passage, parse_passages
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation

CITES = [
    Citation(number=1, source="guide.md", chunk_id="c1", page=2, heading="Install > Linux", score=0.812,
             text="To install ragkit on Linux, run pip install ragkit in a virtual environment.\n[2] not a header"),
    Citation(number=2, source="ports.md", chunk_id="c2", score=0.41,
             text="The server listens on port 8080 by default. You can change the port with the --port flag."),
]


def test_formatted_passages_parse_back_to_the_citations_passages() -> None:
    text = "\n\n".join(format_passage(c) for c in CITES)
    parsed = [(p.number, p.text.strip(), p.meta) for p in parse_passages(text)]
    assert parsed == [(p.number, p.text, p.meta) for p in map(Passage.from_citation, CITES)]


def test_the_local_provider_answers_from_structured_citations_not_the_text() -> None:
    @tool
    def search_knowledge_base(query: str) -> ToolOutput:
        """Search the knowledge base for passages relevant to the query."""
        return ToolOutput(content="(passages attached)", citations=CITES)

    result = Agent(LocalProvider(), tools=[search_knowledge_base]).run("Which port does the server listen on?")
    assert result.content.startswith("The server listens on port 8080 by default. [2]")
    assert extractive_answer("Which port does the server listen on?", []) == REFUSAL


# ---------------------------------------------------------------- answers from real-looking documents and how-to pages
def passages(*texts: tuple[str, str, str]) -> list[Passage]:
    """Passages (source, heading, text) numbered from 1, as the search tool gives them."""
    return [Passage(n, text, {"source": source, "heading": heading}) for n, (source, heading, text) in
            enumerate(texts, 1)]


POEMS = passages(
    ("poems.md", "Poems of the Marsh > The Heron at Dusk",
     "## The Heron at Dusk\n\nGrey sentinel upon the tidal stair,\nyou keep the hour the fishermen forget;\n"
     "the water folds its silver into air.\n\n*Fendyke, 11 October 1912*\n\n## Lines for My Brother\n\n"
     "You left in spring with mud upon your boots.\n\n*Written in 1917, after news of the Somme*\n"),
    ("about.md", "Edith Carrow: a short life",
     "Edith Carrow was born in Norwich in 1881. Her first collection was published in 1921. "
     "Her brother Walter was killed in France in 1916."),
)


def test_the_sentence_that_answers_not_just_a_sentence_of_the_right_passage() -> None:
    """The date of a poem was in the top passage but not in the answer."""
    got = extractive_answer("When was the poem The Heron at Dusk written?", POEMS)
    assert got == "The Heron at Dusk: Fendyke, 11 October 1912 [1]"
    assert "1916" in extractive_answer("When did Edith Carrow's brother die?", POEMS).split("[")[0]


BOOK = passages(
    ("ch04.md", "Understanding Ownership > Ownership Rules",
     "## Ownership Rules\n\nFirst, let's take a look at the ownership rules. Keep these rules in mind as we work "
     "through the examples. These are the three ownership rules:\n\n* Each value in Tern has an owner.\n"
     "* There can only be one owner at a time.\n* When the owner goes out of scope, the value will be dropped.\n\n"
     "## Variable Scope\n\nA scope is the range within a program for which an item is valid.\n\n"
     '<Listing number="4-1" file-name="src/main.tn" caption="A variable and its scope">\n\n```tern\n'
     '{\n    let s = "hello";   // s is valid from this point forward\n}\n```\n\n</Listing>\n'),
    ("recipe.md", "Soda Bread",
     "# Soda Bread\n\nA quick bread with no yeast.\n\n## Ingredients\n\n- 500 g plain flour\n- 400 ml buttermilk\n\n"
     "## Method\n\n1. Heat the oven to 200 °C.\n2. Mix the flour and the buttermilk to a soft dough.\n"
     "3. Bake for 40 minutes.\n"),
)


def test_a_list_question_gets_the_whole_list() -> None:
    """The question about "the three ownership rules" was answered without the rules."""
    assert extractive_answer("What are the three ownership rules?", BOOK) == (
        "These are the three ownership rules: [1]\n- Each value in Tern has an owner.\n"
        "- There can only be one owner at a time.\n- When the owner goes out of scope, the value will be dropped."
    )
    steps = extractive_answer("What are the steps to make soda bread?", BOOK)
    assert steps.startswith("Method: [2]\n1. Heat the oven") and "3. Bake for 40 minutes." in steps
    assert "plain flour" in extractive_answer("What ingredients do I need for soda bread?", BOOK)


def test_a_sentence_that_introduces_a_list_brings_the_list() -> None:
    got = extractive_answer("Which rules about ownership does Tern have?", BOOK)
    assert "Each value in Tern has an owner." in got and "[1]" in got


FAQ = passages(
    ("faq.md", "FAQ > Why does my program print nothing in release mode?",
     "> > I compile with `nest build --release` and my logging disappears. Why?\n"
     "> Release builds set the log level to `warn` by default.\n\n"
     "Set the `TERN_LOG` environment variable to `info` to see the messages again.\n"),
    ("ch01.md", "Getting Started > Hello, Nest!",
     "We can create a new project using Nest with the `nest new` command:\n\n```console\n$ nest new hello\n"
     "     Created binary (application) `hello` package\n$ nest build\n   Compiling hello v0.1.0\n"
     "    Finished dev [unoptimized + debuginfo] target(s) in 2.85 secs\n```\n"),
)


def test_no_markup_in_answers() -> None:
    """`<Listing …>`, `> >` quote markers and pasted build output stayed in answers."""
    why = extractive_answer("Why does my logging disappear in a release build?", FAQ)
    assert why.startswith("Release builds set the log level to `warn` by default. [1]") and ">" not in why
    scope = extractive_answer("What is a scope?", BOOK)
    assert "Listing" not in scope and "<" not in scope and scope.startswith("A scope is the range")
    new = extractive_answer("How do I create a new project with Nest?", FAQ)
    assert "```console\n$ nest new hello\n$ nest build\n```" in new
    assert "Compiling" not in new and "Finished" not in new and "[2]" in new


def test_markup_is_stripped_from_blocks() -> None:
    blocks = parse_blocks(
        '<Listing number="8-1">\n\n> > quoted **bold** [link](http://x) text[3] and `v[100]`.\n</Listing>\n'
    )
    assert [(b.kind, b.text) for b in blocks] == [("prose", "quoted bold link text and `v[100]`.")]
    # a passage cut from a page can start inside a code block and end inside another
    cut = parse_blocks("    await session.close()\n```\nThen more text here.\n```python\nx = 1\n")
    assert [b.kind for b in cut] == ["code", "prose", "code"]


DOCS = passages(
    ("dependencies.md", "Dependencies",
     "# Dependencies\n\nHandlers often need the same piece of logic. Instead of repeating that code in every "
     "handler, write it once as a provider function and declare it with `Needs`."),
    ("cookies.md", "Cookies > Reading a cookie",
     "## Reading a cookie\n\nDeclare a handler argument with the `Cookie()` marker. The argument name is the "
     "cookie name.\n\n```python\n@app.get(\"/visits\")\nasync def visits(session_id: str | None = "
     "Cookie(default=None)):\n    return {\"session\": session_id}\n```\n"),
    ("middleware.md", "Middleware > Example: a timing header",
     "## Example: a timing header\n\nThe middleware below measures how long the application takes to handle a "
     "request and reports it in an `X-Process-Time` response header.\n\n```python\n@app.middleware\nasync def "
     "add_process_time(request, call_next):\n    response = await call_next(request)\n    response.headers"
     "[\"X-Process-Time\"] = \"0.1\"\n    return response\n```\n"),
    ("dependencies.md", "Dependencies > Declaring a dependency",
     "## Declaring a dependency\n\n```python\nasync def pagination(skip: int = 0):\n    return {\"skip\": skip}\n\n"
     "@app.get(\"/articles\")\nasync def list_articles(page: dict = Needs(pagination)):\n    return page\n```\n"),
)
DOCS[0].meta["start"], DOCS[3].meta["start"] = "0", "400"


@pytest.mark.parametrize(
    ("question", "code", "number"),
    [
        ("How do I read a cookie?", "Cookie(default=None)", 2),
        ("How can I add a timing header in a middleware?", 'response.headers["X-Process-Time"]', 3),
        # the page's introduction and its example are two passages: the example follows the intro
        ("How do I share logic between handlers with Needs?", "Needs(pagination)", 4),
    ],
)
def test_how_to_questions_are_answered_with_the_code_block_and_cited(question: str, code: str, number: int) -> None:
    """No false refusals on how-to questions; the answer includes the passage's code."""
    got = extractive_answer(question, DOCS)
    assert got != REFUSAL and code in got and f"[{number}]" in got
    assert got.index("```") > got.index("[")  # the code follows a cited sentence


def test_how_to_questions_nothing_answers_are_refused() -> None:
    assert extractive_answer("How do I deploy the app to Kubernetes?", DOCS) == REFUSAL
    assert extractive_answer("Who composed the music for the heron poem?", POEMS) == REFUSAL


SITE = passages(  # a documentation site's pages: code comes from include directives
    ("cookie-params.md", "Cookie Parameters",
     "# Cookie Parameters\n\nYou can define Cookie parameters the same way you define Query and Path parameters."
     "\n\n## Import `Cookie`\n\nFirst import `Cookie`:\n\n{* ../../docs_src/cookie_params/tutorial001.py hl[3] *}"
     "\n\n## Declare `Cookie` parameters\n\nThen declare the cookie parameters using the same structure as with "
     "`Path` and `Query`.\n\n/// note | Technical Details\n\n`Cookie` is a sister class of `Path` and `Query`.\n\n"
     "///\n"),
    ("install.md", "Install > Linux", "Run `pip install webfw` in a virtual environment."),
)


def test_a_how_to_question_whose_topic_fills_the_page_is_answered() -> None:
    """The question "how to read a cookie" was refused although the cookie page was retrieved: the
    topic word is in every sentence of the page (a low IDF) and the docs do not say "read"."""
    got = extractive_answer("How do I read a cookie?", SITE)
    assert got.startswith("You can define Cookie parameters") and "[1]" in got
    assert "{*" not in got and "///" not in got
    assert extractive_answer("How do I install a dishwasher?", SITE) == REFUSAL
