"""Two questions asked as one ("How many …, and how long …?", "Does it …, and is it …?"), each
case from a document written for it: each part is answered on its own, the second with the first
as its context, so the answer holds both facts (or the one the passages hold)."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.parts import MAX_CHARS, question_parts
from ragkit.rag.passages import Passage


def test_a_question_is_split_only_where_a_second_question_follows_a_comma() -> None:
    assert question_parts("How many wardens sit on the Tern Board, and how long is each warden's term?") == (
        "How many wardens sit on the Tern Board?", "How long is each warden's term?")
    assert question_parts("Does Tern ship its own language server, and is it stable yet?") == (
        "Does Tern ship its own language server?", "Is it stable yet?")
    assert question_parts("What does `tern fold` do? When should I use it instead of `tern merge`?") == (
        "What does `tern fold` do?", "When should I use it instead of `tern merge`?")
    assert question_parts("Where and when will the next Tern summit take place?") is None
    assert question_parts("Which flags, and which defaults?") is None  # no question before the comma
    assert question_parts("How do I pin a version and keep the lock file?") is None
    long = "How many wardens sit on the Tern Board" + ", and which wardens" * 40 + ", and how long is a term?"
    assert len(long) > MAX_CHARS and question_parts(long) is None  # a long text is read as one question


def test_each_part_of_two_questions_is_answered() -> None:
    passages = [
        Passage(1, "# 2021 Tern Board candidates\n\nMara Quill has served an initial one-year term on the Tern Board "
                   "and is standing for re-election.",
                {"source": "elections/2021/candidates.md", "heading": "2021 Tern Board candidates"}),
        Passage(2, "## Board structure\n\nThe Tern Board consists of 7 individual wardens of the guild elected for "
                   "3 year terms. The terms are staggered with elections each spring.",
                {"source": "charter.md", "heading": "Board structure"}),
        Passage(3, "# 2022 Tern Board election\n\nThis document lays out the 2022 election process per the Tern Board "
                   "charter.", {"source": "elections/2022/election.md", "heading": "2022 Tern Board election"}),
    ]
    answer = extractive_answer("How many wardens sit on the Tern Board, and how long is each warden's term?", passages)
    assert "7 individual wardens" in answer and "3 year terms" in answer


def test_the_second_part_is_answered_from_its_own_passage() -> None:
    faq = [
        Passage(1, "## Can I use Tern for commercial work?\n\nTern is free software, and it can also be used for "
                   "commercial and proprietary projects. Tern is available under the MIT license.",
                {"source": "faq.md", "heading": "Can I use Tern for commercial work?"}),
        Passage(2, "## Contributing\n\nContributions to Tern are welcome; by submitting a patch you agree to "
                   "license your work under the project's terms.", {"source": "contributing.md", "heading": "Contributing"}),
    ]
    answer = extractive_answer("Can I use Tern in a proprietary commercial project, and what licence is it under?", faq)
    assert "commercial and proprietary projects" in answer and "MIT license" in answer


def test_a_question_word_after_a_preposition_opens_a_second_question() -> None:
    assert question_parts("Which release dropped the `--legacy` flag, and on what date?") == (
        "Which release dropped the `--legacy` flag?", "On what date?")
    assert question_parts("How many probes does the scan send, and about how long does it take?") == (
        "How many probes does the scan send?", "About how long does it take?")
    assert question_parts("In which release, and on what date, did Tern drop support for Python 3.8?") == (
        "In which release did Tern drop support for Python 3.8?", "On what date did Tern drop support for Python 3.8?")
    assert question_parts("Where, and why, did the nightly build fail?") == (
        "Where did the nightly build fail?", "Why did the nightly build fail?")
    assert question_parts("Which flags, and which defaults, apply?") is None  # too little after the two


def test_a_post_dated_only_by_its_file_name_gives_its_date_once() -> None:
    passages = [
        Passage(1, "# Tern 2.1.0 Released\n\nTern 2.1.0 is out with faster builds. Support for Python versions older "
                   "than Python 3.9 has been dropped.",
                {"source": "_posts/2024-03-05-tern-2-1-0-released.md", "heading": "Tern 2.1.0 Released",
                 "document_title": "Tern 2.1.0 Released", "start": "0"}),
        Passage(2, "# Tern 1.8.0 Released\n\nThe next major version, Tern 2.0, will drop support for Python 3.6.",
                {"source": "_posts/2022-11-20-tern-1-8-0-released.md", "heading": "Tern 1.8.0 Released",
                 "document_title": "Tern 1.8.0 Released", "start": "0"}),
    ]
    answer = extractive_answer(
        "In which release, and on what date, did Tern drop support for Python versions older than 3.9?", passages)
    assert "2.1.0" in answer and "2024-03-05" in answer
    # the date part's sentence is the one quoted already: it adds its date, not the sentence again
    assert answer.count("has been dropped") == 1, answer



def test_a_second_question_asked_whatever_the_first_answers_is_a_part() -> None:
    assert question_parts("Will short tide tokens still work in Kiln 3.1, and if not what should I use?") == (
        "Will short tide tokens still work in Kiln 3.1?", "What should I use?")
    assert question_parts("Does Kiln read gauges offline, and if so, how do I turn it on?") == (
        "Does Kiln read gauges offline?", "How do I turn it on?")
