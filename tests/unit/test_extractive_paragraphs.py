"""A page written one sentence to a line (semantic line breaks, as many books' Markdown sources
are) keeps its paragraphs: the sentence that matches a list question and the line after it that
leads the list ("These modes all begin with a tilde:") are one paragraph, so the list answers.
A PDF's text, which has no blank lines, still ends a paragraph where a line ends a sentence."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.engine import _paragraphs
from ragkit.rag.extractive.text import parse_blocks
from ragkit.rag.passages import Passage

LAMPS = (
    "## Dimming Modes\n\n"
    "By default a lamp refuses a brightness it cannot hold,\n"
    "rather than dimming below its safe level.\n\n"
    "When you do want a lamp to dim below that level,\n"
    "you can opt in to it.\n"
    "The lamp offers three dimming modes that allow it to run below the safe level.\n"
    "These modes all begin with a tilde (`~`):\n\n"
    "- Night dimming (`~night`)\n"
    "- Fog dimming (`~fog`)\n"
    "- Storm dimming (`~storm`)\n\n"
    "### Dim Levels\n\n"
    "A dimmed lamp runs between 10 and 40 percent.\n"
)
BASICS = (
    "## Lamp Modes\n\n"
    "Every lamp supports the four standard modes:\n\n"
    "- Steady (`on`)\n- Flashing (`flash`)\n- Occulting (`occult`)\n- Off (`off`)\n\n"
    "Unlike older lamps, a lamp here refuses to dim below its safe level by default.\n"
    "To opt in to dimming below it, use the second set of modes, such as night dimming (`~night`).\n"
)


def test_a_list_led_by_the_line_after_the_matching_sentence_answers() -> None:
    passages = [
        Passage(1, BASICS, {"source": "basics.md", "heading": "Lamp Modes"}),
        Passage(2, LAMPS, {"source": "advanced.md", "heading": "Dimming Modes"}),
    ]
    answer = extractive_answer("Which modes does a lamp give you for running below its safe level instead of refusing?", passages)
    assert all(mode in answer for mode in ("`~night`", "`~fog`", "`~storm`")), answer
    assert "`flash`" not in answer


def test_lines_without_a_blank_between_are_one_paragraph_but_not_in_a_pdf() -> None:
    blocks = parse_blocks("The keeper lights the lamp.\nThe lamp burns all night.\n\nA new paragraph starts here.\n"
                          "> A quoted reply follows it.\n")
    assert [b.text for b in blocks] == ["The keeper lights the lamp.", "The lamp burns all night.",
                                        "A new paragraph starts here.", "A quoted reply follows it."]
    assert _paragraphs(blocks, paged=False) == [0, 0, 1, 2]  # a reply quoted deeper is another paragraph
    assert _paragraphs(blocks, paged=True) == [0, 1, 2, 3]


def test_this_noun_brings_the_sentence_before_that_says_the_noun() -> None:
    """"This field could …" does not say which field: the sentence two back that says the noun
    ("BEACON_LOG is a field …") is quoted before it. Before, the answer named no field."""
    page = [Passage(1, (
        "## Leaks\n\nAny log page read by a keeper may be seen by an outsider as well. BEACON_LOG is a field "
        "holding the last page visited. It can become known to any outsider without an active attack. "
        "This field could potentially be used to leak the code that would allow the outsider to unlock the "
        "keeper's store room.\n"), {"source": "leaks.md", "heading": "Leaks"})]
    answer = extractive_answer(
        "Which field does the rule on log output warn could hand a store room unlock code to an outsider?", page)
    assert answer.startswith("BEACON_LOG is a field holding the last page visited. This field could"), answer


def test_a_passage_that_starts_at_a_code_blocks_closing_fence_reads_its_prose_as_prose() -> None:
    """A chunk cut after a code block's last line starts with its closing fence: the prose after
    it is prose (before, it was read as code, and its sentence naming the library never quoted)."""
    cut = "```\n\nThis example wrongly assumes the Breton rules apply. The only fix is an external library, such as LampICU.\n"
    assert [b.kind for b in parse_blocks(cut)] == ["prose"]
    page = [Passage(1, cut, {"source": "locale.md", "heading": "Locales"})]
    assert "LampICU" in extractive_answer("Which external library fixes the Breton rules?", page)
    opened = "```\nwick trim --all\n```\n\nThen light the lamp at dusk.\n"
    assert [b.kind for b in parse_blocks(opened)] == ["code", "prose"]


def test_a_passage_that_starts_in_a_code_blocks_last_markup_line_reads_its_prose_as_prose() -> None:
    """A chunk cut inside a template's code block starts with its last line of markup, then the
    closing fence: the prose after it is prose, not code (before, the fence was read as opening
    a block that ran to the passage's end)."""
    cut = ('<lantern @click="lightWick">Light</lantern>\n```\n\nThese frameworks read the markup outside the script, '
           "so the compiler drops the import. With Wick 4.5, you can use `keepValueImports` to avoid this.\n")
    assert [b.kind for b in parse_blocks(cut)] == ["code", "prose"]


def test_a_sentence_that_points_back_is_matched_with_the_words_of_the_one_before() -> None:
    """"This can be done by setting `mode=True`." shares no word with the question; the sentence
    before it says what "this" is. Before, a note on another parameter that shared "chord" and
    "active" was quoted."""
    page = [
        Passage(1, ("## Chords\n\nChords can optionally persist until a user presses escape. This can be done by "
                    "setting `mode=True`. This can be useful for configuring a subset of commands, similar to vim "
                    "modes.\n"), {"source": "config/keys.rst", "heading": "Key chords"}),
        Passage(2, ("## Chord widget\n\nNote: The Chord widget (`Chord`) will display the name of the active chord "
                    "(as set by the `name` parameter).\n"), {"source": "config/keys.rst", "heading": "Key chords"}),
    ]
    answer = extractive_answer("Which chord setting keeps the key chord active until I press escape?", page)
    assert answer.startswith("Chords can optionally persist until a user presses escape. This can be done by "
                             "setting `mode=True`."), answer
