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
    # without a comma, "and" before a question word joins two questions too: a first part of a few
    # words with no verb of its own asks what the second part's verb says
    assert question_parts("What minimum age and how many years of service does the Tern charter require of a warden?") == (
        "What minimum age does the Tern charter require of a warden?",
        "How many years of service does the Tern charter require of a warden?")
    assert question_parts("I publish Tern's config in DNS. What record type do I use and what prefix goes first?") == (
        "I publish Tern's config in DNS. What record type do I use?", "What prefix goes first?")
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


def test_the_statements_before_two_questions_are_no_part_of_either() -> None:
    """"A volunteer fell ill in the middle of the programme. By how much …, and what …?": each part
    is answered by what it asks, not by a sentence that tells the circumstances ("… for volunteers
    in the middle of a placement")."""
    passages = [
        Passage(1, "## Term length\n\nThe placement period of a volunteer can be 8-18 weeks. The standard placement "
                   "is 10 weeks, whatever the volunteer's project.", {"source": "guide/placements.md", "heading": "Term length"}),
        Passage(2, "## Volunteers in hard times\n\nVolunteers will sometimes fall ill or have a family emergency. "
                   "Coordinators can extend a placement, so if the volunteer can recover in a few weeks you can extend "
                   "it by 2, 4 or up to 8 additional weeks (longest placement of 18 weeks).",
                {"source": "guide/hard-times.md", "heading": "Volunteers in hard times"}),
        Passage(3, "## Placement sizes\n\nIn 2023 the programme added two things for volunteers in the middle of a "
                   "placement: 1) several project sizes and 2) several placement lengths. A volunteer project of 120 "
                   "hours could be an 18 week placement if the volunteer, the mentor and the coordinator agree.",
                {"source": "guide/placements.md", "heading": "Placement sizes"}),
    ]
    answer = extractive_answer("A volunteer on our project fell seriously ill in the middle of the programme. By how much "
                               "can the coordinator extend the placement, and what is the longest placement overall?", passages)
    assert "up to 8 additional weeks" in answer and "18 weeks" in answer
    assert "In 2023" not in answer


def test_a_yes_no_question_and_its_reason_are_two_parts() -> None:
    """"Was X affected by the CVE, and why?": whether, then why; the reason is the sentence after
    the claim that gives it ("…, therefore it does not …"), quoted with the claim once."""
    assert question_parts("Was the Tern server affected by the Heartbleed bug (CVE-2014-0160), and why?") == (
        "Was the Tern server affected by the Heartbleed bug (CVE-2014-0160)?",
        "Why was the Tern server affected by the Heartbleed bug (CVE-2014-0160)?")
    assert question_parts("What error does Tern raise, and why?") is None  # no yes/no question to ask why of
    notice = [
        Passage(1, "#### CVE-2014-0160 status\n\nThe Tern team has reviewed the project and determined that the Tern "
                   "server is not affected by this CVE.\nThe server has very few native dependencies and OpenSSL is not "
                   "one of them, therefore it does not expose the project to\nthis security issue.",
                {"source": "notices/heartbleed.md", "heading": "CVE-2014-0160 status"}),
        Passage(2, "### Fixed\n\n* The Tern server no longer crashes when a TLS client sends an empty certificate list.",
                {"source": "releases/2.4.1.md", "heading": "Fixed"}),
    ]
    answer = extractive_answer("Was the Tern server affected by the Heartbleed bug (CVE-2014-0160), and why?", notice)
    assert "not affected" in answer and "very few native dependencies" in answer
    assert answer.count("has reviewed the project") == 1


def test_two_questions_joined_without_a_comma_are_both_answered() -> None:
    passages = [Passage(1, "# Tern charter: wardens\n\nThe qualifications proposed for wardens, as distinguished from those of stewards, "
                           "consist in a more advanced age and a longer period of service. A warden must be forty years "
                           "of age at least; as a steward must be thirty. And the former must have served the guild nine "
                           "years; as five years are required of the latter.", {"source": "charter/wardens.md"})]
    answer = extractive_answer(
        "What minimum age and how many years of service does the Tern charter require of a warden?", passages)
    assert "forty years of age" in answer and "nine years" in answer


def test_the_second_part_asks_another_fact_than_the_first_parts_sentence() -> None:
    # the second part's own words ("document", "certificate") are weaker than the first's context
    # ("training"), whose sentence would answer it again: the sentence that says them answers it
    passages = [Passage(1, "### Application rejected\n\n- Ensure all required fields are completed\n"
                           "- Include the correct Tern course: make sure it is \"Harbour Safety Basics\"\n"
                           "- Include the Tern *Completion Report*, not just the certificate\n"
                           "- Contact the registrar if issues persist", {"source": "faq/access.md"})]
    answer = extractive_answer("My Tern application was rejected. Which Tern course should I have taken, and which "
                               "Tern document do I need to upload rather than just the certificate?", passages)
    assert "Harbour Safety Basics" in answer and "Completion Report" in answer


def test_a_second_question_under_a_condition_keeps_it() -> None:
    assert question_parts("What is the eyesight standard for wardens, and if I need glasses to meet it, when do I "
                          "have to wear them?") == ("What is the eyesight standard for wardens?",
                                                    "If I need glasses to meet it, when do I have to wear them?")
    assert question_parts("Does Tern support ARM, and if not, what should I use?") == (
        "Does Tern support ARM?", "What should I use?")


def test_two_things_each_with_its_article_are_two_questions() -> None:
    assert question_parts("We set up a new box. What are the oldest Kiln compiler version and the oldest Glaze "
                          "version it builds with?") == (
        "We set up a new box. What are the oldest Kiln compiler version?",
        "What are the oldest Glaze version it builds with?")
    assert question_parts("What is the difference between the lexer and the parser?") is None  # a relation of the two
    assert question_parts("What is the ratio of the kiln heat and the glaze heat?") is None
    assert question_parts("What are the name of the tool and the version?") is None  # not a plain thing before "and"


#: a getting-started page that gives both oldest versions, and a migration note about an old release
VERSIONS = [
    Passage(1, "## Glaze\n\nTo use Kiln, you need at least Glaze 3.1.",
            {"source": "getting-started.md", "heading": "Getting started > Glaze"}),
    Passage(2, "### Minimum compiler increased to Kiln 1.2\n\nKiln `0.5` makes use of new compiler features stabilized "
               "between Kiln 1.0 and Kiln 1.2.\nIf you are using a Kiln compiler older than Kiln 1.2, you will need to "
               "update your toolchain to be able to continue using Kiln.",
            {"source": "migration.md", "heading": "Migrating > from 0.4 to 0.5 > Minimum compiler increased to Kiln 1.2"}),
    Passage(3, "## Kiln\n\nFirst, make sure you have Kiln installed on your system. Kiln runs on both the stable and "
               "nightly toolchains so you can choose whichever one fits you best. The minimum required Kiln version is "
               "2.4.\n\nIf you can run `kiln --version` and the version is new enough you're good to go!",
            {"source": "getting-started.md", "heading": "Getting started > Kiln"}),
]


def test_both_things_are_answered_from_the_page_that_gives_them_together() -> None:
    # each thing is asked on its own, and from the page the first answer quotes: an old release's
    # migration note says "older" and "compiler" too
    answer = extractive_answer("I'm setting up a fresh build machine for a Kiln project. What are the oldest Kiln "
                               "compiler version and the oldest Glaze version it will work with?", VERSIONS)
    assert "Glaze 3.1" in answer and "version is 2.4" in answer, answer
    assert "Kiln 1.2" not in answer, answer
