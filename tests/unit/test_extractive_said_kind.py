"""What an answer must say and how words meet: a question that only a date or a number answers is
refused when the answer quotes neither; a gerund's plural ("settings") meets the gerund; a list
question with a hyphenated word ("built-in") asks for the list; a page's HTML comments are no part
of its items. Each document is written for the test, in the shape of a page where the answerer
went wrong."""

from __future__ import annotations

import pytest

from ragkit.agent import Agent
from ragkit.rag.extractive import REFUSAL, extractive_answer, lacks_asked_kind
from ragkit.rag.extractive.answer_type import wants_list
from ragkit.rag.extractive.text import stem
from ragkit.rag.local import LocalProvider
from ragkit.rag.passages import Passage, format_passage
from ragkit.rag.prompts import PASSAGES_HEADER
from ragkit.tools import ToolOutput, tool
from ragkit.types import Citation


def _passages(*texts: tuple[str, str]) -> list[Passage]:
    return [Passage(n, text, {"source": source}) for n, (text, source) in enumerate(texts, 1)]


RELEASE = _passages(
    ("## Introduction to Kelp 4.2\n\nThe latest Kelp release, version 4.2, arrives five months after "
     "Kelp 4.1. Most of its changes are in the toolchain.", "kelp4.2.md"),
    ("## Kelp 4.1\n\nKelp 4.1 adds the `tide` command and was released to fix the build on ARM.", "kelp4.1.md"),
)


def test_a_date_question_whose_answer_quotes_no_date_is_refused() -> None:
    """"On what date was Kelp 4.2 released?": the release notes say it arrives five months after
    the last one, and nowhere when; before, that sentence was the answer."""
    answer = extractive_answer("On what date was Kelp 4.2 released?", RELEASE)
    assert lacks_asked_kind("On what date was Kelp 4.2 released?", answer)
    dated = [*RELEASE, Passage(3, "Kelp 4.2 was released on 3 March 2025.", {"source": "news.md"})]
    answer = extractive_answer("On what date was Kelp 4.2 released?", dated)
    assert "3 March 2025" in answer and not lacks_asked_kind("On what date was Kelp 4.2 released?", answer)


@pytest.mark.parametrize(("question", "answer"), [
    ("When does the teardown run?", "It runs once all connections have been closed. [1]"),  # an event
    ("What date format ends up in the footer?", "The format is '%d %B %Y'. [1]"),  # a format
    ("How often is the log rotated?", "The log is rotated daily. [1]"),  # a frequency
    ("What is the price of reading the guide online?", "The guide is free to read online. [1]"),  # money
    ("How many moorings does the ledger list?", "The ledger lists 37 moorings. [1]"),
    ("How many moorings does the ledger list?", REFUSAL),
    ("How many moorings does the ledger list?", "The 2nd quay has moorings. [1]"),
])
def test_answers_of_another_shape_are_kept(question: str, answer: str) -> None:
    assert not lacks_asked_kind(question, answer)


def test_a_count_answered_without_a_number_is_refused_by_the_provider() -> None:
    """The local provider refuses the final answer (not the draft that picks the file to search
    again): "How many piers …?" answered by a sentence about piers without a count."""
    text = "The harbour has piers on both quays, rebuilt after the storm."

    @tool
    def search(query: str, top_k: int = 5) -> ToolOutput:
        """Search the knowledge base for passages relevant to the query."""
        cite = Citation(number=1, source="harbour.md", chunk_id="h1", text=text, score=0.9)
        return ToolOutput(content=PASSAGES_HEADER + "\n\n" + format_passage(cite), citations=[cite])

    run = Agent(LocalProvider(), tools=[search]).run("How many piers does the harbour have?")
    assert run.content == REFUSAL


@pytest.mark.parametrize(("plural", "gerund"), [("settings", "setting"), ("listings", "listing"),
                                               ("bindings", "binding")])
def test_a_gerunds_plural_meets_the_gerund(plural: str, gerund: str) -> None:
    """"settings" kept its "-ing" ("setting"), "setting" lost it: a question and a page that
    wrote the word in the other number never met."""
    assert stem(plural) == stem(gerund)
    assert stem("things") == "thing" and stem("added") == "add"


def test_a_list_question_with_a_hyphenated_word_asks_for_the_list() -> None:
    assert wants_list("Which built-in functions were added in Kelp 4.2?")[0]
    assert wants_list("Which third-party plugins does the guide recommend?")[0]


def test_a_pages_html_comments_are_no_part_of_its_items() -> None:
    """Release notes whose items open with a comment naming their issue ("<!-- kelp/issue/12 -->")
    on the item's first line: the items read from the text after it, all of them."""
    passages = _passages(
        ("## Changes to the language\n\nKelp 4.2 adds three new built-ins to the language.\n\n"
         "  - <!-- https://kelp.dev/issue/12 -->\n    The new functions `lo` and `hi` compute the smallest\n"
         "    (or largest) of their arguments.\n"
         "  - <!-- https://kelp.dev/issue/15 -->\n    The new function `wipe` deletes all elements of a map.\n",
         "kelp4.2.md"),
    )
    got = extractive_answer("Which built-in functions were added to the language in Kelp 4.2?", passages)
    assert all(name in got for name in ("`lo`", "`hi`", "`wipe`")), got
    assert "<!--" not in got


def test_a_joined_pair_ending_with_a_colon_is_quoted_once() -> None:
    """A why question's answer is sentences of a paragraph joined, the last ending with a colon;
    the lines that complete it are read after them, not from the joined sentences themselves
    (one was quoted again after the colon)."""
    passages = _passages(
        ("## Why not Optfile?\n\nReef is internally based on `getopt` instead of `optfile`. This is a detail "
         "that a user does not need to know. Reef is not based on `optfile` because it has some behaviors "
         "that make handling arbitrary command lines hard:\n\n- `optfile` guesses if something is an argument "
         "or an option.\n- `optfile` does not support disabling interspersed arguments.\n", "why.md"),
    )
    got = extractive_answer("Why is Reef not built on optfile?", passages)
    assert got.count("This is a detail") == 1, got


def test_when_is_answered_by_a_point_counted_in_units() -> None:
    """"When do new members have reviews?": the handbook says "at the 3-month, 6-month, and 1-year
    marks", no calendar date; it was refused as holding nothing of a date."""
    passages = _passages(
        ("## Reviews\n\nYou will meet with your mentor for formal reviews. When you are new to the club, you "
         "will meet at the 3-month, 6-month, and 1-year marks. Then you will meet once a year.", "reviews.md"),
    )
    got = extractive_answer("When do new members have reviews?", passages)
    assert "3-month" in got and "1-year" in got, got


def test_an_images_alt_text_in_words_is_text() -> None:
    """A video's cover image whose alt text names the talk and its speaker ("A Tidy Printer by
    Ada Quill on Harbour Conf 2019"): the alt text was dropped with the image, so "Who gave the
    talk …?" found no name; an alt text is no title either."""
    passages = _passages(
        ("Tern keeps the style of every file the same.\n\nIf you want to learn more, these talks are great "
         "introductions:\n\n[![A Tidy Printer by Ada Quill on Harbour Conf 2019](/img/cover.png)]"
         "(https://video.example/watch?v=1)\n\n![logo](/img/logo.png)\n", "index.md"),
    )
    got = extractive_answer('Who gave the talk "A Tidy Printer" at Harbour Conf 2019?', passages)
    assert "Ada Quill" in got and "logo" not in got, got


def test_a_name_with_a_digit_is_no_number() -> None:
    """"How many packages does the index host?" answered by "… backed by AWS S3 …": a name with a
    digit in it ("S3", a byline's "Wang1") is no count."""
    assert lacks_asked_kind("How many packages does the index host?",
                            "Reef Cloud is a package index server, backed by AWS S3 or local files. [1]")


def test_a_which_question_is_answered_by_the_field_its_noun_labels_on_a_line_of_several() -> None:
    """A report form's line holds two fields ("Case Number: 2207-HB  Harbour Office: North Quay
    Office"); "Which harbour office handled …?" is answered by the second, which it labels."""
    passages = _passages(
        ("Incident Summary Report\n\nReports that do not include all of the required information will be "
         "returned to the office for completion.\n\nCase Number: 2207-HB  Harbour Office: North Quay Office\n\n"
         "Vessel Information\nLength: 12 metres  Type: Trawler\n\nOn 3 March 2024, the office received a report "
         "regarding a trawler that ran aground.", "report-2207.pdf"),
    )
    got = extractive_answer("Which harbour office handled the case of the trawler that ran aground in March 2024?",
                            passages)
    assert "North Quay Office" in got, got
    assert "North Quay" not in extractive_answer("What is a harbour office?", passages)


def test_a_why_answer_reads_on_to_the_next_lines_otherwise() -> None:
    """The reason is on the line after the advice, a sentence of its own line ("Otherwise, it can
    cause an infinite loop"); it was read on only within the advice's own line."""
    passages = _passages(
        ("### Note about creating a cell in a render function\n\nCell configs can be created anywhere.\n"
         "To create a cell in a render function, `useMemo` is required to get a stable reference.\n"
         "Otherwise, it can cause an infinite loop with `useCell`.\n\n```js\nconst c = useMemo(() => cell(1), [])\n```\n",
         "core/cell.md"),
    )
    got = extractive_answer("Why do I need useMemo when I create a cell in a render function?", passages)
    assert "infinite loop" in got, got


def test_an_accuracy_is_a_percentage() -> None:
    """"What accuracy did the system reach on the Welsh run?": the report gives its byline and the
    runs it submitted, no accuracy; the byline was quoted (its names carry footnote digits)."""
    passages = _passages(
        ("Harbour QA at the Answer Validation Exercise\nMarta Quell1 and Ada Reed2\n\nWe submitted runs for "
         "English, German and Welsh. The results of the Welsh run are discussed in the next section.", "ave.pdf"),
    )
    question = "What accuracy did Quell and Reed's system reach on the Welsh run?"
    assert extractive_answer(question, passages) == REFUSAL
    passages.append(Passage(2, "The Welsh run reached an accuracy of 61.2%.", {"source": "ave.pdf"}))
    assert "61.2%" in extractive_answer(question, passages)


def test_a_name_the_file_name_holds_scopes_the_answer() -> None:
    """"What is the subject of the Outlook test email?": the message's text never says "Outlook",
    its file name does (``test_outlook_msg.msg``); another file that says "Outlook" was quoted."""
    passages = [
        Passage(1, "Subject: Harbour Test Message\nFrom: Ada Reed <ada@example.com>\n\nThis is the body of the "
                   "test email message.", {"source": "mail/test_outlook_msg.msg"}),
        Passage(2, "Questions about the harbour go to harbour@outlook.com by email.", {"source": "contacts.md"}),
    ]
    assert "Harbour Test Message" in extractive_answer("What is the subject of the Outlook test email?", passages)
