"""The offline answerer states the fact asked for where the right passage holds it: a paper's
byline read whole from its first page (names under their affiliations, or side by side), "who is
the first author" answered by that byline, the sentence after a best match that only describes
the case ("… if no charset is given …") read on to the one that names the value, and a refusal
when no passage holds a number of the asked measure. The passages are small hand-written
documents with the shapes found in real documentation and papers."""

from __future__ import annotations

from ragkit.loaders.pdf_paper import byline
from ragkit.rag.extractive import REFUSAL, answer_type, extractive_answer
from ragkit.rag.extractive.values import asks_instance
from ragkit.rag.passages import Passage

# a first page whose text layer sets each author above four or five lines of affiliation and an
# address: the third name comes more than a dozen lines under the title
FIRST_PAGE = "\n".join([
    "Tidal Ledgers for Small Harbours",
    "∗",
    "Ada Quill",
    "†",
    "Dept. of Marine Engineering",
    "Penwith University of the",
    "North Coast.",
    "ada@penwith.ac.uk",
    "Ben Ross",
    "Dept. of Marine Engineering",
    "and Navigation",
    "Harbour State University",
    "ben@harbour.edu",
    "Cai Lund",
    "Dept. of Marine Engineering",
    "and Navigation",
    "Harbour State University",
    "cai@harbour.edu",
    "ABSTRACT",
    "We keep ledgers of the tides for small harbours.",
])


def test_a_byline_whose_names_stand_over_their_affiliations_is_read_to_its_last_name() -> None:
    """Before: "Ada Quill, Ben Ross": the byline was read in the first twelve lines under the title."""
    assert byline(FIRST_PAGE, "Tidal Ledgers for Small Harbours") == "Ada Quill, Ben Ross, Cai Lund"


def test_names_set_side_by_side_on_one_line_are_each_a_name() -> None:
    """Before: None (a line of six capitalised words is no one name) and "Penwith" read instead."""
    page = ("Lamp Rotation in Coastal Lighthouses\nAda Quill Ben Ross Cai Lund\n"
            "Penwith Institute of Lights, Penwith\n{ada, ben, cai}@penwith.ac.uk\nAbstract\nLamps turn.")
    assert byline(page, "Lamp Rotation in Coastal Lighthouses") == "Ada Quill, Ben Ross, Cai Lund"
    # a title-case line of a form or a report, set under no affiliation, does not grow a byline
    form = "\n".join(["BOOKING ORDER", "Harbour Cinemas", *[f"Field Name {w}" for w in "ABCDEFGHIJKLMNOPQ"]])
    assert byline(form, "BOOKING ORDER") == "Harbour Cinemas"


def test_who_is_the_first_author_is_answered_by_the_byline() -> None:
    """Before: a sentence of another paper that opens with "First, we show …": "first" was a word
    to match, and "the first author" was not read as a question about the byline."""
    meta = {"source": "lamps.pdf", "page": "4", "start": "5000", "authors": "Ada Quill, Ben Ross",
            "document_title": "Lamp Rotation in Coastal Lighthouses"}
    passages = [
        Passage(1, "A lamp turns once every ten seconds in the rotation we propose.", meta),
        Passage(2, "First, we show that sparse lamp rotation is as bright as full rotation in two respects.",
                {"source": "sparse lamps.pdf", "page": "3", "start": "4000", "authors": "Tom Reed",
                 "document_title": "Sparse Lamps"}),
    ]
    got = extractive_answer("Who is the first author of Lamp Rotation in Coastal Lighthouses?", passages)
    assert "Ada Quill" in got and "Tom Reed" not in got, got


def test_a_best_sentence_that_describes_the_case_is_read_on_to_the_value() -> None:
    """Before: only the first sentence, which shares most words with the question but names no
    charset; the next one of its paragraph names it."""
    passages = [
        Passage(1, "The only time Tern will not detect the charset is if no explicit charset is given in the "
                   "headers and the body is text. In this case the protocol says the default charset must be "
                   "windows-1252. Tern follows the protocol here.",
                {"source": "advanced.rst", "heading": "Advanced > Charsets", "start": "2000"}),
        Passage(2, "Tern decodes a reply when you read its text.",
                {"source": "advanced.rst", "heading": "Advanced > Charsets", "start": "1500"}),
    ]
    got = extractive_answer("What charset does Tern fall back to for a text reply whose headers give no charset?",
                            passages)
    assert "windows-1252" in got, got


def test_an_instance_question_names_a_noun_then_its_verb() -> None:
    assert asks_instance("What charset does Tern fall back to?")
    assert asks_instance("Which linter does the book install?")
    assert not asks_instance("What does the linter do?")
    assert not asks_instance("What happens when the lamp fails?")


def test_a_price_asked_for_where_no_passage_gives_an_amount_of_money_is_refused() -> None:
    """Before: a sentence about the lamp's training run, with counts but no price, was quoted."""
    passages = [
        Passage(1, "Training the large lamp model drew electricity for 4 days on 16 lamps. The lamps were lit "
                   "at 300 watts.",
                {"source": "lamps.pdf", "page": "5", "start": "6000"}),
        Passage(2, "The large lamp model was trained for 1,000,000 steps on 128,000 words per batch.",
                {"source": "lamps.pdf", "page": "9", "start": "9000"}),
    ]
    assert extractive_answer("How much did the electricity for training the large lamp model cost?",
                             passages) == REFUSAL


# a form's text as a PDF's text layer gives it: labels and values, some on one line, some a label
# line with its value on the line after it
STOCK_REPORT = [
    Passage(1, "STOCK COUNT REPORT\nDepot: Harbour Store West\nCount Date: 2024-03-02\nCounted By: Ada Quill\n\n"
               "The stock count reveals several key findings. Most shelves match the ledger.",
            {"source": "stock-count.pdf", "page": "1", "start": "0"}),
    Passage(2, "FERRY BOOKING\nVessel:\nNorth Star\nBooking Contact:\nTom Reed\nThis booking is subject to "
               "weather and standard terms. Agency Fee: 8%",
            {"source": "ferry-booking.pdf", "page": "1", "start": "0"}),
]


def test_a_field_labelled_with_the_questions_words_answers_who() -> None:
    """Before: refused (the label shares one word with the question, and the line reads as a
    title) and the booking's terms sentence, which names no contact."""
    assert "Ada Quill" in extractive_answer("Who counted the stock count report?", STOCK_REPORT)
    got = extractive_answer("Who is the booking contact of the North Star ferry booking?", STOCK_REPORT)
    assert "Tom Reed" in got, got



def test_a_signature_answers_who_signed_in_the_role_asked_for() -> None:
    """A signature sets the name above its role lines. Before: the role line was read as the
    heading of the sentence after it, which was quoted ("Chief Operating Officer: A signed
    original …")."""
    passages = [Passage(1, "Pursuant to the requirements of the Act, this report has been signed on behalf of the "
                           "company.\nDate: July 28, 2022 Gull Ferries Inc.\nBy: /s/ Tom Reed\nTom Reed\n"
                           "Senior Vice President,\nChief Operating Officer\nA signed original of this written "
                           "statement has been provided to Gull Ferries Inc. and will be retained by it.",
                        {"source": "gull-annual.pdf", "page": "22", "start": "9000"})]
    got = extractive_answer("Who signed the Gull Ferries annual report as chief operating officer?", passages)
    assert "Tom Reed" in got, got


def test_a_list_question_is_answered_by_the_sentence_that_names_the_items() -> None:
    """Before: a bulleted list of another page that shares a word with the question ("… the
    NETRC environment variable") was quoted instead of the sentence that names every variable."""
    passages = [
        Passage(1, "When no lamps are passed, Tern reads the lamp configuration from the environment variables "
                   "lamp_red, lamp_green, lamp_blue, and lamp_all. Uppercase names are read too.",
                {"source": "advanced.rst", "heading": "Advanced > Lamps", "start": "1800"}),
        Passage(2, "Custom headers:\n\n- Headers set with headers= are overridden by the configuration Tern reads "
                   "from the LAMP_NETRC environment variable.\n- Authorization headers are dropped on redirects.",
                {"source": "quickstart.rst", "heading": "Quickstart > Custom Headers", "start": "700"}),
    ]
    got = extractive_answer("Which environment variables does Tern read its lamp configuration from?", passages)
    assert all(v in got for v in ("lamp_red", "lamp_green", "lamp_blue", "lamp_all")), got


def test_a_question_that_states_its_case_with_when_asks_what_follows() -> None:
    """"When both …, which mode …?" asks for a mode, not a date. Before: read as a "when"
    question, the sentence with the mode held no date and the question was refused."""
    passages = [
        Passage(1, "## Merge modes\n\nBy default (`prefer-left`), Tern keeps the left value over the right one, "
                   "falling back to the right value only if every left candidate that satisfies the rules is "
                   "rejected during merging. Use `--merge right` to prefer right values.",
                {"source": "concepts/merging.md", "heading": "Merging > Merge modes", "start": "3000"}),
    ]
    question = ("When both left and right values could satisfy a rule, which merge mode does Tern use unless "
                "told otherwise?")
    assert answer_type(question) == (None, frozenset())
    assert answer_type("When does the merge run?")[0] == "date"
    assert "prefer-left" in extractive_answer(question, passages)
