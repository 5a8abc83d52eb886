"""Forms of question whose answer is not the kind the first word suggests, each from a document
written for it: "Who is allowed …?" answered by a group of people, "When does …?" by a point in a
game's or a process's sequence, "the max …" by "a maximum of …", "X compared with Y" by both
values, "Which recipe …?" by the recipe's title; and a two-part question whose part's answer
goes on from a sentence the answer quotes already."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.extractive.text import stem
from ragkit.rag.passages import Passage


def test_who_may_do_a_thing_is_answered_by_a_group_of_people() -> None:
    passages = [
        Passage(1, "# Harbor dashboard is open to all squads\n\n## Context\n\nWe want squads to see the metrics of "
                   "their services in one place. The hosted dashboard offers no easy sign-in, so a proxy sits in front "
                   "of it.\n\n## Consequences\n\nThe dashboard can be opened by any member of the harbor-ops Slack "
                   "workspace, which gives every squad a view of its metrics.",
                {"source": "adr/012-harbor-dashboard.md", "heading": "Harbor dashboard is open to all squads"}),
    ]
    answer = extractive_answer("Who is allowed to sign in to the Harbor dashboard to read metrics?", passages)
    assert "any member of the harbor-ops Slack workspace" in answer


def test_when_in_a_sequence_of_play_is_answered_by_its_point_and_the_max_by_its_maximum() -> None:
    passages = [
        Passage(1, "## Tide Marker\n\nThe tide marker measures how far the flood has come.\n\nAt the start of the "
                   "third turn, the harbourmaster places the tide marker on 1. Each crew loses planks equal to the "
                   "current value on the tide marker. Each turn, the tide marker rises by 1, to a maximum of 8.\n\n"
                   "If every crew is bailing, "
                   "the tide marker does not rise.",
                {"source": "Rules/Tide-Marker.md", "heading": "Tide Marker"}),
    ]
    answer = extractive_answer("When does the harbourmaster first place the tide marker during a game?", passages)
    assert "At the start of the third turn" in answer
    answer = extractive_answer("When does the harbourmaster first place the tide marker during a game, and what is "
                               "the max value it can reach?", passages)
    assert "third turn" in answer and "maximum of 8" in answer
    assert answer.count("At the start of the third turn") == 1  # a sentence the answer quotes already is not repeated
    assert stem("max") == stem("maximum") and stem("min") == stem("minimum") and stem("highest") != stem("maximum")


def test_a_part_that_goes_on_from_a_quoted_sentence_replaces_it() -> None:
    passages = [
        Passage(1, "## Slipping Away\n\nYou can walk away from the guards that hold you, but each of them gets a "
                   "free swing at you when you do.\n\nIf you would rather not risk a free swing, you can spend your "
                   "stride action to slip away (a slip check). If you choose to slip away, roll a plain check (12+). "
                   "You can slip away from several guards with one check.\n\nIf the slip check succeeds, you walk "
                   "without giving free swings to the guards that held you.",
                {"source": "Rules/Slipping-Away.md", "heading": "Slipping Away"}),
        Passage(2, "## Free Swings\n\nWhen a guard gets a free swing, it makes a plain strike against that foe during "
                   "the foe's turn.", {"source": "Rules/Free-Swings.md", "heading": "Free Swings"}),
    ]
    answer = extractive_answer("I'm held by two guards and want to leave without giving free swings. What do I roll, "
                               "and which of my actions does it use?", passages)
    assert "12+" in answer and "stride action" in answer


def test_a_comparison_is_answered_with_both_values() -> None:
    passages = [
        Passage(1, "## Decision\n\nWe will enable single sign-on for the Harbor accounts:\n\n- the identity provider "
                   "is the company directory\n- the broker is Keybridge\n\nThis sign-in has a time-out, depending on "
                   "the role:\n\n- view-only role - 10 hours\n- view+edit role - 2 hours\n\nThe old passwords are retired.",
                {"source": "adr/020-sso.md", "heading": "Decision"}),
    ]
    answer = extractive_answer("Under the single sign-on, how long does a session last on the view-only role "
                               "compared with the view+edit role?", passages)
    assert "10 hours" in answer and "2 hours" in answer


def test_which_recipe_is_answered_by_its_title() -> None:
    passages = [
        Passage(1, "## Ingredients\n\n- Rye flour, 500g\n- Caraway seeds, 2 tsp\n- Salt, 10g\n\n## Directions\n\n"
                   "1. Mix everything and rest overnight.", {"source": "dark-rye-loaf.md", "heading": "Ingredients",
                                                              }),
        Passage(2, "## Ingredients\n\n- Wheat flour, 500g\n- Butter, 50g\n\n## Directions\n\n1. Knead for ten "
                   "minutes.", {"source": "white-bloomer.md", "heading": "Ingredients"}),
    ]
    passages[0].meta["document_title"] = "Dark Rye Loaf"
    passages[1].meta["document_title"] = "White Bloomer"
    answer = extractive_answer("All I have is rye flour, caraway seeds and salt. Which recipe can I make?", passages)
    assert "Dark Rye Loaf" in answer


def test_a_comparison_stated_in_one_sentence_is_not_answered_by_another_passages_list() -> None:
    passages = [
        Passage(1, "## Sieving\n\nYou will want to sieve cores used for pots or nutrient tests. Typically 6 mm is "
                   "right for pot soil, 3 mm for soil nutrient tests. Clean the sieve between cores.",
                {"source": "field/coring.md", "heading": "Sieving"}),
        Passage(2, "## Steps\n\n1. Knead the soil in its bag by hand\n2. Keep soil for pots on ice\n3. Note where "
                   "the core was taken\n4. Store the bags at 4C in the lab, soil for nutrient tests as well as pot soil",
                {"source": "field/coring.md", "heading": "Steps"}),
    ]
    answer = extractive_answer("After coring, what sieve size is usual for soil going into pots versus soil "
                               "for nutrient tests?", passages)
    assert "6 mm" in answer and "3 mm" in answer
    assert "Knead" not in answer


def test_a_counted_thing_in_a_later_how_clause_asks_for_no_list() -> None:
    from ragkit.rag.extractive.answer_type import wants_list

    assert wants_list("How long is the vector it returns, and how should two vectors be compared?") == (False, False)
    assert wants_list("How should two vectors be compared?") == (False, False)
    assert wants_list("What are the three rules, and how do I apply them?")[0]


def test_a_score_asked_for_is_a_number() -> None:
    from ragkit.rag.extractive.query import read_question

    assert read_question("What F1 score does the tagger reach on the dev set?").kind == "number"
    assert read_question("What BLEU score does it get?").kind == "number"


def test_a_score_is_not_answered_by_a_number_of_things() -> None:
    passages = [
        Passage(1, "# kelp-tagger\n\n## Use case\n\n`kelp-tagger` is a fine-tuned model that tags entities in "
                   "text and reaches strong results on the tagging task. It has been trained to recognize four "
                   "types of entities: places, groups, people and others.",
                {"source": "kelp-tagger/README.md", "heading": "kelp-tagger > Use case"}),
        Passage(2, "## Accuracy\n\nMeasured on the dev set of the Harbour corpus.\n\n| Metric | Value |\n|---|---|\n"
                   "| F1 | 91.2% |", {"source": "kelp-tagger/README.md", "heading": "kelp-tagger > Accuracy"}),
    ]
    answer = extractive_answer("What F1 score does the kelp-tagger model reach on the tagging task?", passages)
    assert "91.2%" in answer, answer


def test_who_made_a_list_asks_for_a_person_not_a_list() -> None:
    from ragkit.rag.extractive.answer_type import wants_list

    assert wants_list("Who started the list of known bugs before the wiki moved?") == (False, False)
    assert wants_list("Who put together the word list the game reads?") == (False, False)
    assert wants_list("Who is on the staff list?")[0]  # the people on a list are a list
    passages = [
        Passage(1, "# Tern Radio Notes\n\n## Contents\n\n- tern-datasheet.pdf (June 2014) - the datasheet.\n"
                   "- tern-guide.pdf (May 2015) - the programming guide.\n\n## Thanks\n\nWith thanks to Mirela "
                   "Ostrova for first hosting these notes and starting a list of known bugs.",
                {"source": "README.md", "heading": "Tern Radio Notes"}),
    ]
    answer = extractive_answer("Who first hosted the Tern radio notes and started the list of known bugs?", passages)
    assert "Mirela Ostrova" in answer


def test_a_day_of_every_month_dates_a_recurring_deadline() -> None:
    from ragkit.rag.extractive.answer_type import has_answer_type

    assert has_answer_type("date", "You have until the 5th of the month to send the prior month's log.", frozenset())
    assert has_answer_type("date", "Claims are due by the last working day of each month.", frozenset())
    assert not has_answer_type("date", "The month is short, so plan ahead.", frozenset())
    passages = [
        Passage(1, "## Boat logs\n\nAll fuel logs of the survey boat must be sent to the harbour office monthly. "
                   "You have until the 5th of the month to send in the prior month. Use one sheet per month.\n\n"
                   "## Crossing\n\nOn Friday morning we load the boat and cross to the island.",
                {"source": "field/boat.md", "heading": "Boat logs"}),
    ]
    answer = extractive_answer("I took the survey boat out a lot last month. By what day must I send in its fuel log?",
                               passages)
    assert "5th of the month" in answer


def test_a_mail_link_keeps_its_address_and_answers_whom_to_contact() -> None:
    from ragkit.rag.extractive.text import clean_line

    assert clean_line("[Mirela Ostrova](mailto:mo@example.org) can help.") == "Mirela Ostrova (mo@example.org) can help."
    assert clean_line("Write to [mo@example.org](mailto:mo@example.org).") == "Write to mo@example.org."
    assert clean_line("See [the guide](https://example.org/guide).") == "See the guide."
    passages = [
        Passage(1, "### Payment\n\nThe harbour office's mail plan is a standard plan. The plan is paid by the town. "
                   "[Mirela Ostrova](mailto:mo@example.org) is the point of contact if we need help with billing.",
                {"source": "MAIL.md", "heading": "Payment"}),
    ]
    answer = extractive_answer("Something is wrong with the invoice for the harbour office's mail plan. Who is the "
                               "person to contact about billing?", passages)
    assert "Mirela Ostrova" in answer


def test_the_first_sentence_under_a_heading_points_back_at_the_heading() -> None:
    passages = [
        Passage(1, "## Boards\n\nEach crew keeps a board of its repair requests.\n\n#### `Drydock` Column\n\nThis is the "
                   "intake column for new repair requests which nobody has looked at yet. This is also the column for "
                   "repairs too large to start this season.\n\n#### `Slipway` Column\n\nRepairs that are planned and "
                   "staffed sit here.",
                {"source": "BOARDS.md", "heading": "Boards"}),
    ]
    answer = extractive_answer("A new repair request just landed on our board and nobody has looked at it yet. "
                               "Which column should it sit in?", passages)
    assert "Drydock" in answer
