"""A release notes folder names each file for its release: a sentence of ``changelog-4.3.rst``
is no answer about "Kiln 5.5", though it never writes a version itself."""

from __future__ import annotations

from collections.abc import Sequence

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.releases import another_file_release, asks_release, file_releases
from ragkit.rag.passages import Passage


def test_the_release_a_file_name_writes() -> None:
    assert file_releases("docs/whatsnew-5.5.rst") == ["5.5"]
    assert file_releases("CHANGELOG-3.5.md") == ["3.5"]
    assert file_releases("notes/1.17.0-notes.rst") == ["1.17.0"]
    assert file_releases("v2.44.0.txt") == ["2.44.0"]
    assert file_releases("migration_21.rst") == [] and file_releases("python3.8.md") == []
    assert file_releases("docs/release/release_0_4_0.md") == ["0.4.0"]  # napari's names
    assert file_releases("minutes/2025_08_29.md") == [] and file_releases("step_2.md") == []
    assert another_file_release("changelog-4.3.rst", ["5.5"])
    assert not another_file_release("whatsnew-5.5.rst", ["5.5.0"])  # one release, two spellings
    assert not another_file_release("3.5.4.rst", ["3.5"]) and not another_file_release("CHANGELOG-3.5.md", ["3.5.4"])
    assert not another_file_release("history.rst", ["5.5"])
    assert another_file_release("release_0_4_7.md", ["0.4.0"])  # another release of the series asked for
    assert not another_file_release("release_0_4_0.md", ["v0.4.0"])


def test_a_question_asks_for_a_release_by_release_or_series_not_by_another_things_version() -> None:
    assert asks_release("In which patch release was the flag's removal pushed back to v3.8?", version=False)
    assert not asks_release("Which Python version did Kiln 3.5.0 drop?", version=False)
    assert asks_release("Which Python version did Kiln 3.5.0 drop?")  # the sentence rule's reading, unchanged


def test_a_sentence_of_another_releases_file_counts_half() -> None:
    notes = [
        Passage(1, "## Requirements\n\nKiln accepts redis-py 4.0.2 or later.",
                {"source": "changelog-4.3.rst", "heading": "Requirements", "start": "0"}),
        Passage(2, "# What's new in Kiln 5.5\n\n## Dependencies\n\nThe minimum supported redis-py is 4.5.2.",
                {"source": "whatsnew-5.5.rst", "heading": "What's new in Kiln 5.5 > Dependencies", "start": "0"}),
    ]
    answer = extractive_answer("What is the oldest redis-py version Kiln 5.5 accepts?", notes, max_sentences=1)
    assert "4.5.2" in answer and "[2]" in answer


def test_another_releases_notes_do_not_answer_when_the_asked_releases_notes_are_there() -> None:
    notes = [
        Passage(1, "# Version 0.4 (2013-05-02)\n\n## Authors\n\nThe committers, preceded by their number of commits:\n\n"
                   "* 212  Ada Quill\n* 97  Ben Oduya",
                {"source": "changes/v0.4.rst", "heading": "Version 0.4 (2013-05-02) > Authors", "start": "0"}),
        Passage(2, "# Version 2.3.0 (2025-02-11)\n\n## Dependencies\n\n- Core dependency numpy >= 2.1\n"
                   "- Optional dependency scipy >= 1.13",
                {"source": "changes/v2.3.rst", "heading": "Version 2.3.0 (2025-02-11) > Dependencies", "start": "0"}),
    ]
    def near(question: str, texts: Sequence[str]) -> list[float]:  # the model's nearness: the count is near
        return [0.8 if "212" in t else 0.3 for t in texts]

    question = "How many commits did Ada Quill contribute to the 2.3.0 release?"
    assert "does not contain" in extractive_answer(question, notes, max_sentences=1, similarity=near)
    asked = "How many commits did Ada Quill contribute to the 0.4 release?"
    assert "212" in extractive_answer(asked, notes, max_sentences=1, similarity=near)


def test_a_sentence_under_the_asked_releases_heading_passes_an_unreleased_fragment_saying_the_same() -> None:
    notes = [
        Passage(1, "Raised minimum versions of some optional dependencies to comply with Kiln's support policy, by Ada "
                   "Quill:\n\n- Optional dependency dipy >= 1.9\n- Optional dependency mne-qt-browser >= 0.6\n",
                {"source": "changes/dev/14108.dependency.rst", "heading": "", "start": "0"}),
        Passage(2, "# Version 1.12.0 (2026-04-07)\n\n## Dependencies\n\n- Updated minimums for:\n\n"
                   "  - Core dependency `scipy >= 1.13`\n  - Optional dependency `pandas >= 2.2`\n\n"
                   "  Changes made by a CI job.\n\n## Bugfixes\n\n- Fix a bug in plotting, by Ada Quill.\n",
                {"source": "changes/v1.12.rst", "heading": "Version 1.12.0 (2026-04-07) > Dependencies", "start": "0"}),
    ]
    answer = extractive_answer("Which dependency minimums were raised in Kiln 1.12.0?", notes)
    assert "scipy >= 1.13" in answer and "pandas >= 2.2" in answer and "[2]" in answer


def test_a_version_of_another_product_is_asked_about_the_release_the_question_numbers() -> None:
    """"What is the oldest Python that Kiln 3.15 can be installed on?" asks for Python's version,
    about Kiln 3.15: with 3.15's notes among the passages, 3.6's notes answer nothing."""
    from ragkit.rag.extractive.releases import asked_product

    assert asked_product("Since TypeScript 5.0 targets a newer ECMAScript, what is the oldest Node.js it runs on?") \
        == "Node.js"
    notes = [
        Passage(1, "## Bug fixes\n\n- Fixed a crash when Kiln 3.15 is installed with an empty tide table.",
                {"source": "3.15.rst", "heading": "What's new in Kiln 3.15 > Bug fixes", "start": "0"}),
        Passage(2, "## Requirements\n\n- Kiln can now be installed on Python 3.8, the oldest Python it supports.",
                {"source": "3.6.rst", "heading": "What's new in Kiln 3.6 > Requirements", "start": "0"}),
    ]
    assert "does not contain" in extractive_answer("What is the oldest Python that Kiln 3.15 can be installed on?", notes)
    assert "3.8" in extractive_answer("What is the oldest Python that Kiln 3.6 can be installed on?", notes)


def test_a_release_its_file_name_alone_writes_is_the_release_asked_for() -> None:
    """Notes titled "Release Notes" that write their release only in the file's name
    (``release-notes-2.3.1.md``): the question's "Quarry 2.3.1" is there, and so is the answer."""
    notes = [
        Passage(1, "# Release Notes\n\n## Routing\n\n* The default retry delay has been increased from 5 seconds "
                   "to 12 seconds.",
                {"source": "docs/release-notes/release-notes-2.3.1.md", "heading": "Release Notes > Routing",
                 "start": "0"}),
        Passage(2, "# Release Notes\n\n## Routing\n\n* The default retry delay is now logged at start-up.",
                {"source": "docs/release-notes/release-notes-2.4.0.md", "heading": "Release Notes > Routing",
                 "start": "0"}),
    ]
    answer = extractive_answer("What did Quarry 2.3.1 raise the default retry delay to?", notes, max_sentences=1)
    assert "12 seconds" in answer and "[1]" in answer
    assert "does not contain" in extractive_answer("What did Quarry 2.5.0 raise the default retry delay to?", notes)


def test_a_release_of_two_parts_after_its_name_is_read_from_the_heading_above() -> None:
    """A year's change log ("2019.md") heads each release "20.0 / 2019/10/30" and never says
    "Kiln": "Kiln 20.0" is that release, so its section answers the date from its heading.
    Before: only three-part releases were read so, the section lacked the name and was dropped."""
    from ragkit.rag.extractive.releases import under_release

    assert under_release(["20.0 / 2019/10/30", "Changes - 2019"], "On what date did Kiln 20.0 come out?")
    assert not under_release(["20.0.3 / 2019/11/24"], "On what date did Kiln 20.0 come out?")
    assert under_release(["2.0.0"], "When was Kiln 2.0.0 released?")
    notes = [
        Passage(1, "## 17.5 / 2013-07-03\n\nKiln is stable since a long time and there is no point to release a "
                   "\"1.0\" now.", {"source": "2013.md", "heading": "Changes - 2013 > 17.5 / 2013-07-03", "start": "0"}),
        Passage(2, "## 20.0 / 2019/10/30\n\n- Fixed a warning in the reader of tide tables\n- Dropped the old "
                   "loader", {"source": "2019.md", "heading": "Changes - 2019 > 20.0 / 2019/10/30", "start": "0"}),
    ]
    assert "2019/10/30" in extractive_answer("On what date did Kiln 20.0 come out?", notes)
