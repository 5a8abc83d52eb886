"""What a number question asks for: a time is not a rate ("after how long … low interest"), a
length of time says "time", and "a single issue" is a number."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer, lacks_asked_kind
from ragkit.rag.extractive.answer_type import (
    answer_type,
    asked_state,
    counted_noun,
    counts,
    has_answer_type,
    quantity_measure,
    says_state,
)
from ragkit.rag.passages import Passage


def _passage(source: str, heading: str, text: str) -> list[Passage]:
    return [Passage(1, f"## {heading}\n\n{text}", {"source": source, "heading": heading, "start": "0"})]


def test_a_question_that_asks_how_long_wants_no_rate_whatever_it_says() -> None:
    assert quantity_measure("After how long is a stalled proposal considered of low interest and closed?") is None
    assert quantity_measure("How much interest accrues on the loan?") == "rate"
    stalled = _passage("stalled.md", "Stalled proposals",
                       "If a proposal cannot find enough reviewers within 3 months it is considered of low interest "
                       "and closed.")
    answer = extractive_answer("After how long is a proposal without enough reviewers considered of low interest "
                               "and closed?", stalled)
    assert "3 months" in answer


def test_a_length_of_time_answers_how_much_time() -> None:
    lesson = _passage("lessons/json.md", "JSON > Assignment",
                      "Read the two JSON articles below and spend about 10-15 minutes on the exercises.")
    answer = extractive_answer("How much time does the JSON lesson suggest spending on the exercises?", lesson)
    assert answer != REFUSAL and "10-15 minutes" in answer


def test_an_amount_of_text_answers_a_length_or_a_size() -> None:
    """"lengths" asked, "at least 40 characters and no more than 250 characters long" answers:
    before, a refusal for never saying "length"."""
    from ragkit.rag.extractive.answer_type import says_size

    rules = _passage("guide/abstracts.adoc", "Layout > Abstracts > Minimum and maximum",
                     "- Abstracts must be at least 40 characters and no more than 250 characters long.\n"
                     "- Put anything longer in a paragraph of its own.")
    answer = extractive_answer("What are the minimum and maximum lengths allowed for a topic's abstract?", rules)
    assert "40 characters" in answer and "250 characters" in answer
    notes = _passage("guide/uploads.md", "Uploads", "Uploaded attachments are capped at 25 MB each.")
    assert "25 MB" in extractive_answer("What is the maximum size of an uploaded attachment?", notes)
    assert says_size("a 2 GB limit") and says_size("65,535 bytes") and says_size("80 columns")
    assert not says_size("in 2 weeks") and not says_size("version 2.5")


def test_how_much_asks_for_the_thing_it_names_whatever_else_is_paid() -> None:
    """"the paid part" is not what is asked: "how much extra unpaid leave". Before: a price asked
    for, no passage giving one, and a refusal."""
    question = "Once the paid part of a shore leave is used up, how much extra unpaid leave can a deckhand take?"
    assert quantity_measure(question) is None
    assert quantity_measure("How much does the printed edition cost?") == "money"
    assert quantity_measure("How much money did the harbour fair raise?") == "money"
    assert quantity_measure("How much of a discount do pensioners get?") == "rate"
    leave = _passage("crew/leave.md", "Shore leave",
                     "- Paid leave: deckhands get up to 3 weeks of paid shore leave.\n"
                     "- Unpaid leave: after the 3 weeks of paid leave, a deckhand may take five weeks of unpaid leave.")
    assert "five weeks" in extractive_answer(question, leave)


def test_single_and_once_are_numbers() -> None:
    assert has_answer_type("number", "Each contribution should focus on a single issue.", frozenset())
    assert has_answer_type("number", "The hook runs once per commit.", frozenset())


def test_one_or_more_and_one_of_the_count_nothing() -> None:
    """"forwarded through one or more intermediaries" gives no size: the number question "Up to
    what event size …?" quoted it as the nearest sentence of its kind, before the rule that gives
    the size."""
    for idiom in ("Events are forwarded through one or more intermediaries.", "The nodes talk to one another.",
                  "It is one of the ways to pass events.", "Rows are read one by one.", "No one reads the log."):
        assert not has_answer_type("number", idiom, frozenset()), idiom
    assert has_answer_type("number", "One intermediary is enough.", frozenset())
    assert has_answer_type("number", "Intermediaries MUST forward events of 64 KiB or less.", frozenset())
    spec = _passage("spec.md", "Size limits",
                    "In many scenarios, events will be forwarded through one or more generic intermediaries, each of "
                    "which might impose limits on the size of forwarded events.\n\n"
                    "- Intermediaries MUST forward events of a size of 64 KiB or less.\n"
                    "- Consumers SHOULD accept events of a size of at least 64 KiB.")
    got = extractive_answer("Up to what size must intermediaries forward events?", spec)
    assert "64 KiB" in got


def test_what_a_thing_costs_asks_for_an_amount_of_money() -> None:
    """"What does a single-core licence … cost?" asks for money as "How much does … cost?" does.
    Before, it asked for nothing in particular, and a manual that names no price was quoted."""
    assert answer_type("What does a single-core licence of the tide gauge core cost?")[0] == "number"
    assert quantity_measure("What does a test run cost per virtual user hour?") == "money"
    assert answer_type("What does the cost factor mean?")[0] is None
    manual = _passage("gauge/manual.pdf", "Tide gauge core",
                      "The tide gauge core is intended to be connected to any tide sensor which can handle a single "
                      "ended signal. A single-core configuration reads one sensor.")
    assert extractive_answer("What does a single-core licence of the tide gauge core cost?", manual) == REFUSAL
    priced = _passage("gauge/prices.md", "Tide gauge core",
                      "A single-core licence of the tide gauge core costs EUR 1,200 per year.")
    assert "EUR 1,200" in extractive_answer("What does a single-core licence of the tide gauge core cost?", priced)


def test_how_many_people_is_refused_when_no_passage_counts_people() -> None:
    """"How many people attended …?" over an agenda that gives days and session lengths only:
    before, "Tuesday June 29 (1h55m)" was quoted for its numbers. A count by another noun for
    people ("11 contributors") still answers."""
    agenda = _passage("meeting/opening.md", "Agenda",
                      "- Open Day: Monday June 28 (1h55m)\n- Architecture: Tuesday June 29 (1h55m)")
    assert extractive_answer("How many people attended the open day on 28 June?", agenda) == REFUSAL
    release = _passage("blog/release.md", "Ballast 54.0.0",
                       "The Ballast 54.0.0 release had 11 contributors, who merged 80 pull requests.")
    assert "11 contributors" in extractive_answer("How many people contributed to the Ballast 54.0.0 release?", release)


def test_the_largest_limit_asks_for_a_number() -> None:
    """"the largest limit" is a bound: a number. Before: no kind, and the sentence that introduces
    the endpoint outscored the one that gives the maximum."""
    assert answer_type("What is the largest limit I can pass to the tide endpoint?")[0] == "number"
    assert answer_type("Which timeout applies to gauge reads?")[0] == "number"
    endpoint = [Passage(1, "## Status > Tide stats\n\nThe following endpoint returns various gauge statistics about "
                           "the harbour's tide gauges:\n\n```\nGET /api/v1/status/tides\n```\n\nURL query parameters:"
                           "\n\n- `limit=<number>`: Limit the number of returned items to a given number for each set of "
                           "statistics. By default, 10 items are returned. The maximum allowed limit is 5000.",
                        {"source": "api.md", "heading": "Status > Tide stats", "start": "0"})]
    answer = extractive_answer("What is the largest limit I can pass to the /api/v1/status/tides gauge statistics "
                               "endpoint?", endpoint)
    assert "5000" in answer, answer


def test_a_default_named_after_defaults_to_is_a_value() -> None:
    """"Which database does the harbour team use by default …?": "… defaults to using Tidebase for
    most of our applications" names it, though no code or number does; it was refused before."""
    from ragkit.rag.extractive.values import holds_value

    page = [Passage(1, (
        "## Choosing a datastore\n\nMany factors should influence how harbour engineers choose a datastore. "
        "To make this choice simpler, the harbour team defaults to using Tidebase for most of its applications. "
        "Other stores need a review.\n"), {"source": "datastores.md"})]
    answer = extractive_answer("Which database does the harbour team use by default for new applications?", page)
    assert "Tidebase" in answer and answer != REFUSAL
    assert holds_value(None, "The team defaults to using Tidebase.", frozenset({"team"}), default=True)
    assert not holds_value(None, "The team defaults to using it.", frozenset({"team"}), default=True)


def test_a_case_before_a_question_word_after_a_preposition_asks_no_date() -> None:
    """"When a coordinator fetches the data, *on which* platforms …?" asks for platforms, not a
    date: the case first, then the question, as "When …, which …?" was read already."""
    assert answer_type("When a coordinator fetches the data, on which read-only platforms can the limit be 0?")[0] is None
    assert answer_type("When the gauge reads high, which lamp turns on?")[0] is None
    assert answer_type("When was the gauge installed?")[0] == "date"
    page = [Passage(1, (
        "## When using a coordinator\n\nA coordinator only centralises the inbound data updates. "
        "This means you can set `BEACON_LIMIT = 0` for read-only platforms (`tide_gauge`, `buoy`) and only the "
        "lamp calls are limited.\n"), {"source": "limits.md"})]
    answer = extractive_answer(
        "When a coordinator handles data fetching, on which read-only platforms can BEACON_LIMIT simply be set to 0?", page)
    assert "`tide_gauge`" in answer


def test_how_many_is_not_answered_by_a_count_of_other_things() -> None:
    """"How many lighthouses have reached the gold grade?" is not answered by "There are 4 grades":
    a number followed by another plural counts that; the passages give no count asked for."""
    from ragkit.rag.extractive.answer_type import counts_other
    from ragkit.rag.extractive.query import read_question

    page = [Passage(1, (
        "## Grades\n\nThere are 4 grades, bronze, silver, gold and platinum. Gold is the highest grade "
        "a lighthouse can reach, the mark of a well kept light.\n"), {"source": "grades.md"})]
    question = "How many lighthouses have reached the gold grade so far?"
    answer = extractive_answer(question, page)
    assert "4 grades" not in answer and lacks_asked_kind(question, answer)  # the local provider refuses it
    noun = read_question(question).counted  # the stem of "lighthouses"
    assert counts_other(noun, "There are 4 grades.")
    assert not counts_other(noun, "Twelve lighthouses are gold.")
    assert not counts_other(noun, "About 40 of them are gold.")  # a number of something unnamed may be it


def test_a_count_of_one_other_thing_does_not_answer_how_many() -> None:
    """"How many high-severity findings did the audit report?" is not answered by "a vessel could
    hold a maximum of one mooring slot": "one" and the words after it in lower case count a slot;
    "one high-severity finding" still counts a finding."""
    from ragkit.rag.extractive.answer_type import counts_other
    from ragkit.rag.extractive.query import read_question

    page = _passage("berth-audit.md", "Summary", "This report covers the second version of berth bookings. In the "
                    "first version of berth bookings, a vessel could hold a maximum of one mooring slot.")
    question = "How many high-severity findings did the audit of berth bookings report?"
    assert extractive_answer(question, page) == REFUSAL
    noun = read_question(question).counted
    assert counts_other(noun, "a vessel could hold a maximum of one mooring slot.")
    assert not counts_other(noun, "The audit reported one high-severity finding.")
    assert not counts_other(noun, "It found one.")


def test_a_count_in_words_may_name_a_defined_term_in_capitals() -> None:
    """Bylaws capitalise their defined terms: "Quorum … is seven Wardens" counts wardens, as
    "seven wardens" would, although another passage writes the noun in lower case. After digits
    a capitalised word may start a numbered heading ("2 Wardens and Keepers"), not a count."""
    from ragkit.rag.extractive.answer_type import counts

    pages = [
        Passage(1, ("## 4. Board of Wardens > Meetings and Quorum\n\nThe Board meets every second month. "
                    "Quorum for meetings of the Board is seven Wardens, at least one of them a Keeper.\n"),
                {"source": "charter.md"}),
        Passage(2, ("## Lamp committee\n\nThe lamp committee has a minimum of three wardens; about six is "
                    "recommended.\n"), {"source": "committees.md"}),
    ]
    answer = extractive_answer("How many wardens must attend a board meeting for it to be quorate?", pages)
    assert "seven Wardens" in answer
    assert counts("warden", "Quorum is seven Wardens.") and counts("warden", "three wardens")
    assert not counts("warden", "2 Wardens and Keepers")


def test_a_defined_term_the_question_capitalises_is_counted_after_digits() -> None:
    """"How many Tech Leads must a group have?" writes its noun as a defined term, so "2 or 3 Tech
    Leads in a group are required" counts it, as "seven Wardens" does in words. Before: the
    sentence counted nothing, and "more than 8 PRs" (another thing) answered."""
    from ragkit.rag.extractive.answer_type import counts

    pages = [
        Passage(1, ("## Lamp groups\n\nTo join a lamp group, a Keeper needs to trim more than 8 wicks for the "
                    "group within 1 year. A lamp group leads the upkeep of one lighthouse, and its members "
                    "get guidance from Tech Leads.\n"), {"source": "groups.md"}),
        Passage(2, ("## Group roles\n\n- Tech Lead\n  - 2 or 3 Tech Leads in a lamp group are required\n"
                    "  - Responsible for training the group's members\n"), {"source": "groups.md"}),
    ]
    answer = extractive_answer("We are setting up a new lamp group. How many Tech Leads must it have?", pages)
    assert answer.startswith("Group roles: 2 or 3 Tech Leads"), answer
    assert counts("lead", "2 or 3 Tech Leads are required", defined=True)
    assert not counts("lead", "2 or 3 Tech Leads are required")  # a heading's number, unless the question says so


def test_an_issue_or_pull_request_number_is_no_amount() -> None:
    """A change log's entry ends with its pull request ("… smaller than `offset` (753).") and a
    page points at an issue ("see #15201"): neither number answers "How many …?" nor "How
    much …?"; a number in parentheses inside a sentence, or of a unit, still may."""
    assert not has_answer_type("number", "BREAKING: Grow the buffer when it is smaller than `offset` (753).", frozenset())
    assert not has_answer_type("number", "Plans for a `lamp group` command exist (see #15201 for progress).", frozenset())
    assert not has_answer_type("number", "Fixed the wick trimmer (gh-812)", frozenset())
    assert has_answer_type("number", "A keeper may light at most 3 lamps at once.", frozenset())
    assert has_answer_type("number", "The lamp turns twice a minute (120 turns an hour) at night.", frozenset())
    page = [Passage(1, "## Lamp groups\n\nThere are plans for a `lamp group` command (see #15201 for progress).\n",
                    {"source": "jobs.md"})]
    question = "What is the maximum number of lamps a keeper may light at once?"
    answer = extractive_answer(question, page)
    assert answer == REFUSAL or lacks_asked_kind(question, answer), answer


def test_how_many_asked_of_a_default_is_answered_by_a_number() -> None:
    """"How many stages does it run in parallel by default …?" asks for a default that is a count:
    a page's "(Default is `false`)" of another option is no answer, and the local provider refuses
    it; "4 stages by default" is one."""
    question = "How many tide gauges does the logger poll in parallel by default when I don't pass --jobs?"
    page = [Passage(1, "## Options\n\n**--keep-logs**\n\nKeep the intermediate gauge logs instead of removing them "
                       "after the poll completes (Default is `false`).\n\n**--jobs** *N*\n\nPoll up to N gauges in "
                       "parallel.", {"source": "tide-logger.1.md"})]
    answer = extractive_answer(question, page)
    assert answer == REFUSAL or lacks_asked_kind(question, answer), answer
    assert not lacks_asked_kind(question, "It polls 4 gauges in parallel by default. [1]")


def test_which_things_with_two_words_before_the_noun_asks_for_a_list() -> None:
    """"Which signal discovery mechanisms are covered …?" asks for the mechanisms, a list, as
    "Which mechanisms are …?" does; before, two words before the plural hid it."""
    from ragkit.rag.extractive.answer_type import wants_list

    assert wants_list("Which signal discovery mechanisms are covered by the lamp stability promise?")[0]
    assert wants_list("Which built-in naming conventions can a keeper's log use?")[0]
    assert not wants_list("Which harbour light theme did the guide move to?")[0]
    page = [Passage(1, (
        "## Stability promise\n\nThe following signal discovery mechanisms are covered by the promise:\n\n"
        "- Fog horn discovery\n- Radio beacon discovery\n- Flag discovery\n\n"
        "Other mechanisms may change in any minor release.\n"), {"source": "stability.md"})]
    answer = extractive_answer("Which signal discovery mechanisms are covered by the lamp stability promise?", page)
    assert all(m in answer for m in ("Fog horn", "Radio beacon", "Flag discovery")), answer


def test_a_case_stated_before_why_asks_for_a_reason_not_a_date() -> None:
    """"When I store …, why can't …?" asks why: its "When" states a case, not a question of time."""
    question = "When I store compiled tide models and reload them later, why can't the fast path be stored with them?"
    assert answer_type(question)[0] is None
    models = _passage("storing.md", "Storing models",
                      "Compiled tide models can be stored and reloaded later on the same kind of host. "
                      "The fast path cannot be stored with them, because it is position-dependent.")
    assert "position-dependent" in extractive_answer(question, models)


def test_a_negated_auxiliary_is_no_word_of_the_question() -> None:
    """"don't" is "do not": no term "don" that no passage says."""
    from ragkit.rag.extractive.text import terms

    assert terms("If I don't use it, it isn't kept and won't carry over") == ["keep", "carry"]
    assert terms("Don Quill") == ["don", "quill"]  # a name, not a negation


def test_a_release_written_after_the_asked_product_answers_which_version_of_it() -> None:
    """"Which Kestrel version …?" is answered by "Implemented in Kestrel 2.0.20-Beta2" in a passage
    search ranks low, not by a Slug's "version 4" or "version 7" under a heading that names Kestrel."""
    passages = [
        Passage(1, "## Slug versions the Kestrel library should generate\n\nIn terms of popularity, in about 90 "
                   "percent of cases users generate a Slug version 4 (random). Yet another Slug version gaining "
                   "popularity, especially in databases, is version 7.",
                {"source": "slug.md", "heading": "Slug > Slug versions the Kestrel library should generate",
                 "start": "900"}),
        Passage(2, "## Alternatives\n\nBecause Kestrel did not previously provide a type for Slugs in common code, "
                   "the community wrote several libraries.",
                {"source": "slug.md", "heading": "Slug > Alternatives", "start": "500"}),
        *(Passage(n, f"## Note {n}\n\nThe tide table {n} lists heights for harbour {n}.",
                  {"source": f"t{n}.md", "heading": f"Note {n}", "start": "0"}) for n in range(3, 18)),
        Passage(18, "# Slug\n\n* Type: Standard library proposal\n* Status: Implemented in Kestrel 2.0.20-Beta2; "
                    "Stable since 2.4.0",
                {"source": "slug.md", "heading": "Slug", "start": "0"}),
    ]
    answer = extractive_answer("In which Kestrel version was the common Slug class first implemented?", passages,
                               max_sentences=1)
    assert "2.0.20-Beta2" in answer and "[18]" in answer


def test_how_often_is_answered_by_a_frequency_in_words() -> None:
    """"How often …?" asks for a number of times in a period: "quarterly review", "every two
    weeks" say it in words (before, the sentence held "no number" and was refused)."""
    policy = _passage("harbour-policy.docx", "Policy statements",
                      "Harbour security reviews: Harbour board processes must include quarterly review with pilot "
                      "teams to identify unsafe moorings or berthing patterns that the tide tables should prevent.")
    answer = extractive_answer("How often does the harbour policy expect the board to sit down with the pilot teams to "
                               "look for unsafe moorings?", policy)
    assert "quarterly review" in answer
    counted = _passage("harbour.md", "Moorings", "The harbour has quarterly reviews of its forty moorings.")
    assert "does not contain" in extractive_answer("How many pilots does the harbour board employ?", counted)


def test_a_purpose_stated_before_which_leaves_the_question_that_follows_it() -> None:
    """"To keep X, which command do I run …?" asks for a command as "Which command do I run …?"
    does (before, the purpose clause hid the "which" and the named thing asked for); a case that
    implies a default ("If I don't configure anything, …") still asks for the default."""
    from ragkit.rag.extractive.query import read_question

    asked = read_question("To keep gauge readings across a restart, which console command do I run before restarting?")
    assert (asked.value_kind, asked.which) == ("name", True)
    assert read_question("If I don't configure anything, how long is a mooring held?").default
    guide = _passage("restart.md", "Restarting the gauge",
                     "When the console receives the restart order, it hands its session to the new process. "
                     'The readings file is made by running "dump gauge readings" over the console and saving the output.')
    answer = extractive_answer("To keep gauge readings across a restart, which console command do I run before "
                               "restarting?", guide, max_sentences=1)
    assert "dump gauge readings" in answer


def test_how_much_of_a_mass_noun_wants_a_measure_of_it() -> None:
    """"How much code …?" counts code: "65,535 bytes of code" answers it, a sentence whose only
    number is an offset's "+ 2" does not. Before: the sentence sharing more words won."""
    assert counted_noun("How much code can a single forward jump skip over?") == "cod"
    assert counted_noun("How much does the printed edition cost?") == ""
    assert counts("cod", "A 16-bit offset lets us skip up to 65,535 bytes of code at once.")
    assert not counts("character", "It matches one of the characters.")
    chapter = [
        Passage(1, "## Loops\n\nThe `+ 2` accounts for the size of the loop instruction's own operands, which a "
                   "backward jump also needs to skip over.",
                {"source": "loops.md", "heading": "Loops", "start": "0"}),
        Passage(2, "## If statements\n\nA forward jump instruction takes an operand: its size is two bytes. A "
                   "16-bit offset lets us skip up to 65,535 bytes of code, which should be plenty for a single jump.",
                {"source": "branches.md", "heading": "If statements", "start": "0"}),
    ]
    answer = extractive_answer("With the operand size used for jump instructions, how much code can a single "
                               "forward jump skip over?", chapter, max_sentences=1)
    assert "65,535 bytes" in answer, answer


def test_how_many_noun_statements_is_answered_by_a_count_of_the_noun() -> None:
    """"How many *tether* statements …?" is answered where the design counts "8 tethers", the word
    before the counted noun: documents count a statement by its keyword. Before: a sentence with
    another number ("Kelp 1.13 implements …") was the answer."""
    from ragkit.rag.extractive.answer_type import counted_modifier

    assert counted_modifier("Past how many tether statements in one function does it give up?") == "tether"
    assert counted_modifier("How many people attended?") == ""
    assert counted_modifier("How many of its own shares did the company buy back?") == ""
    pages = [
        Passage(1, "## Background\n\nKelp 1.13 implements the `tether` statement by calling into the runtime to push "
                   "a tether record onto the tether chain. Kelp 1.13 adds an optimization to stack-allocate tether "
                   "records, but they must still be pushed and popped from the tether chain.",
                {"source": "tethers.md", "heading": "Background", "start": "0"}),
        Passage(2, "## Implementation\n\nWe need to restrict the number of tethers in a function to the size of "
                   "the tetherBits bitmask. To keep code small, tetherBits is 8 bits, and we do not inline "
                   "tethers if there are more than 8 tethers in a function.",
                {"source": "tethers.md", "heading": "Implementation", "start": "900"}),
    ]
    got = extractive_answer("Past how many tether statements in one function does the compiler stop inlining "
                            "tethers and use the tether chain?", pages)
    assert "8 tethers" in got, got


def test_a_question_that_ends_asking_which_wants_a_thing_named() -> None:
    """"… took its inspiration from which other format?" asks which one, as "Which format …?"
    does: the sentence that names another format answers, not the one that names the question's
    own. Before: "KDUF is a file format designed for tide models." """
    from ragkit.rag.extractive.values import asks_which

    assert asks_which("The KDUF format took its inspiration from which other format?")
    assert not asks_which("Who knows which one is right?")
    formats = _passage("reference/serialization.md", "Serialization > KDUF",
                       "KDUF is a file format designed for tide models. It allows saving all the information to run "
                       "a model in a single file. This work is inspired by the ZUFF format.")
    got = extractive_answer("The KDUF single-file format for tide models took its inspiration from which other format?",
                            formats)
    assert got.startswith("This work is inspired by the ZUFF format."), got


def test_a_question_about_funding_wants_an_amount_of_money() -> None:
    assert quantity_measure("How much EU funding, in euros, did the Lantern project receive?") == "money"
    assert quantity_measure("How much did the foundation donate to the meetup?") == "money"
    acknowledgement = _passage("lantern.pdf", "Acknowledgements",
                               "This project has received funding from the European Union's research programme "
                               "under grant agreement No. 871525 (Lantern).")
    question = "How much EU funding, in euros, did the Lantern project receive?"
    assert extractive_answer(question, acknowledgement) == REFUSAL  # a grant's number is no amount
    funded = _passage("lantern.pdf", "Acknowledgements",
                      "The Lantern project received EU funding of €2,400,000 under grant agreement No. 871525.")
    assert "€2,400,000" in extractive_answer(question, funded)


def test_how_often_is_answered_by_a_frequency_on_a_basis() -> None:
    """"on an annual basis" says how often, as "annually" does (before, the section's other
    sentence, which shares more of the question's words, was the answer)."""
    drills = [Passage(1, "## Flood drills\n\nFlood drill training: your drill is flood response training for the "
                         "harbour crew, and the drill notes are its record.\n\nRunning flood drills on an annual basis "
                         "at the very least is a good idea.",
                      {"source": "flood-drills.md", "heading": "Flood drills", "start": "0"})]
    answer = extractive_answer("How often should the harbour crew run flood drills at the very least?", drills,
                               max_sentences=1)
    assert "annual basis" in answer


def test_how_quickly_and_how_soon_ask_a_length_of_time() -> None:
    """"How quickly …?" and "How soon …?" are answered by a length of time as "How long …?" is
    ("within 2 working days"); "immediately" is one too (before, "How quickly" counted nothing and
    the longer sentence on the same subject won)."""
    assert counted_noun("How quickly am I expected to look at it?") == counted_noun("How long is it?") == "long"
    assert counted_noun("How soon does it return?") == "long"
    manifests = [Passage(1, "#### Checkers and clerks\n\n**Request a check** from at least one crew member. This should "
                            "be someone who has context around the cargo that was loaded, experience with the vessel "
                            "being cleared, and/or knowledge of the customs forms in use.\n\nRequested checks are "
                            "appreciated within 2 working days. If that's not possible, set expectations with the "
                            "skipper.\n\n**Assign** a single clerk to the manifest.",
                         {"source": "manifest-workflow.md", "heading": "Checkers and clerks", "start": "0"})]
    answer = extractive_answer("Someone asked me to check their manifest. How quickly am I expected to get to it?",
                               manifests, max_sentences=1)
    assert "2 working days" in answer


def test_an_identifier_joining_the_questions_words_is_the_name_asked_for() -> None:
    """"Which environment variable …?" is answered by HARBOURCTL_TIDE_ALERTS though each of its
    words is the question's: the question writes them apart, never as the identifier (before,
    the sentence held "no value" and the answer was refused)."""
    text = ("# Forcing tide alerts on or off\n\nHarbourctl decides whether the radio understands tide alerts by "
            "walking the list of known radio models. That guess can be wrong for a radio not on the list.\n\n"
            "The HARBOURCTL_TIDE_ALERTS environment variable now states the answer outright and skips the detection "
            "entirely.\n\nAccepted values are 1 and 0.")
    forcing = [Passage(1, text, {"source": "tide-alerts-force.rst", "heading": "Forcing tide alerts on or off",
                                 "start": "0"})]
    answer = extractive_answer("Which environment variable lets me tell Harbourctl outright whether my radio supports "
                               "tide alerts, instead of letting it guess?", forcing, max_sentences=1)
    assert "HARBOURCTL_TIDE_ALERTS" in answer
    from ragkit.rag.extractive.values import holds_value

    # the question that writes the identifier whole asks about it: the identifier is no answer
    assert not holds_value("name", "SESSION_COOKIE_NAME: the name of the cookie.",
                           frozenset({"session_cookie_name", "what", "does", "set"}))
    assert holds_value("name", "SESSION_COOKIE_NAME: the name of the cookie.", frozenset({"session", "cookie", "name"}))


def test_what_happens_when_nothing_is_configured_answers_an_implied_default() -> None:
    """"If I never configure a secret store, where …?" asks what happens by default: "If you don't
    configure a secret store, Tern stores tokens in `tern.toml`" says it, as "By default, …" does."""
    passages = [
        Passage(1, "## Mirrors\n\nBy default, the `tern sync` command assumes that the mirror listens on port 9418 or "
                   "443. If the mirror listens on another port, add the port to the mirror's name.",
                {"source": "commands/sync.md", "heading": "Mirrors"}),
        Passage(2, "## Tokens\n\nSync tokens are kept in the configured [secret store](#secret-stores). If you use the "
                   "desktop app, tokens are saved to the keychain of your system. If you don't use the desktop app, you "
                   "can set the secret store in the configuration file, at `$HOME/.tern/tern.toml`. If you don't "
                   "configure a secret store, Tern stores tokens in the `tern.toml` file in plain text. This is less "
                   "safe than a secret store.", {"source": "commands/sync.md", "heading": "Tokens"}),
        Passage(3, "### Secret stores\n\nThe Tern daemon can keep user tokens in an external secret store, such as the "
                   "keychain of the operating system.", {"source": "commands/sync.md", "heading": "Secret stores"}),
    ]
    answer = extractive_answer("If I never configure a secret store, where and how does tern sync keep my mirror tokens?",
                               passages)
    assert "in plain text" in answer and "port 9418" not in answer


def test_at_one_time_is_no_number_one() -> None:
    """"How many … can I have at one time?" asks how many at once: its "one" is no number, so an
    example's "1 guest pass" does not answer it."""
    passages = [
        Passage(1, "## Guest passes\n\nMembers on a family plan can invite guests. You can hold up to 6 guest passes, "
                   "at any given time.", {"source": "club/passes.md", "heading": "Guest passes"}),
        Passage(2, "### Guest pass example\n\nYou are on a family plan and visit on Sundays. You need not bring anyone, "
                   "but if a friend wants to swim with you, you can ask the front desk for 1 more visit, therefore "
                   "receiving 1 guest pass.", {"source": "club/passes.md", "heading": "Guest pass example"}),
    ]
    answer = extractive_answer("How many guest passes can I have saved at one time?", passages)
    assert "up to 6 guest passes" in answer and "1 guest pass." not in answer


def test_punctuation_in_code_names_no_option() -> None:
    """"Which flag …?" wants a name: "a comma after that `]`" quotes a bracket, not an option."""
    from ragkit.rag.extractive.values import holds_value

    assert not holds_value("name", "With a comma after that `]` such issues never happen.", frozenset())
    assert holds_value("name", "Pass `--no-comma` to drop them.", frozenset())


def test_a_well_known_acronym_says_its_words() -> None:
    """"CLI Override: `--no-comma`" answers "Which command line flag …?": a CLI is a command line
    interface though the options page never spells it out."""
    passages = [
        Passage(1, "### Trailing commas\n\nThis is about using the [noComma](options.md#commas) option.\n\nConsider "
                   "this piece of code, which Tidy formats:\n\n```js\nconst a = [1, 2]\n```\n\nWith a comma after that "
                   "`]` such issues never happen. It keeps each line independent of the others.",
                {"source": "rationale.md", "heading": "Trailing commas"}),
        Passage(2, "## Commas\n\nTidy prints trailing commas wherever possible.\n\n| Default | CLI Override | API Override |"
                   "\n| --- | --- | --- |\n| `true` | `--no-comma` | `comma: <bool>` |",
                {"source": "options.md", "heading": "Commas"}),
    ]
    answer = extractive_answer("Which command line flag makes Tidy print code without trailing commas?", passages)
    assert answer.startswith("Default: `true`; CLI Override: `--no-comma`")


SLATE = _passage("advisories/HSEC-2031-0004.md", "Slate decoder crash", (
    "In Slate 2.1 to 2.4, the parallel decoder in libslate has a bug where crafted input can crash the whole "
    "process (CVE-2031-0042). Applications that call the `slate_decode_mt` function are affected.\n\n"
    "The Haskell *slate-clib* library bundles the C code. The *slate* package does not use the parallel decoder "
    "and is therefore unaffected."))


def test_a_yes_no_question_about_a_state_is_answered_by_the_sentence_that_says_it() -> None:
    """"Am I affected by …?" asks whether a state holds: "… is therefore unaffected" says it (its
    opposite, by a prefix), over the sentence that describes the bug in the question's words. Before,
    "Am" opened no question the engine knew, and the description was quoted."""
    got = extractive_answer("I use the slate package, not slate-clib. Am I affected by the parallel decoder crash "
                            "(CVE-2031-0042)?", SLATE)
    assert "unaffected" in got, got
    assert asked_state("Am I affected by the parallel decoder crash?") == "affected"
    assert asked_state("Is the cache shared between workers?") == "shared"
    assert asked_state("Is there a limit?") == ""
    assert says_state("affected", "It is therefore unaffected.") and not says_state("affected", "It crashes.")


TRANSPORT = _passage("lectures/L08.md", "Transport security", (
    "Examples of ciphers actually used in transport security are outlined in the next lecture.\n\n"
    "- the 'quiet transport layer' was originally designed in the 80s by Omar ElNaggar, then chief engineer "
    "at Wavelink.\n- The layer went through a series of upgrades as loopholes were closed."))


def test_a_surname_with_a_capital_inside_names_a_person() -> None:
    """"Omar ElNaggar" is a person's name: a surname of "El" and a capitalised word, as "McAdam" or
    "DeWitt" are. Before, "ElNaggar" was no name word, no sentence held a person, and the question
    was refused."""
    got = extractive_answer("Who originally designed the quiet transport layer, and at which company was he working?",
                            TRANSPORT)
    assert "Omar ElNaggar" in got and "Wavelink" in got, got
    assert has_answer_type("person", "It was designed by Omar ElNaggar in 1985.", frozenset({"who", "designed"}))


def test_a_price_asked_is_not_answered_by_a_count_of_things() -> None:
    """"How much does a Silver membership cost per year?" asks for money: "2 blogs per year" and "2
    on-demand webinars per year" count other things, so the local provider refuses the answer. A
    bare number may still be an amount (a table's cell under a heading in dollars), and a price,
    "free" or a number of dollars answers. Before, any number passed for the price."""
    page = _passage("members.md", "Member benefits", (
        "Silver members may submit up to 2 blogs per year, as part of their membership. Silver members are "
        "eligible for 2 on-demand webinars per year."))
    question = "How much does a Silver membership cost per year?"
    answer = extractive_answer(question, page)
    assert answer == REFUSAL or lacks_asked_kind(question, answer), answer
    assert lacks_asked_kind(question, "Silver members may submit up to 2 blogs per year, as part of their "
                                      "membership. [1] Silver members are eligible for 2 on-demand webinars per year. [2]")
    assert not lacks_asked_kind(question, "Purchases of property and equipment: 30,675 [1]")
    assert not lacks_asked_kind(question, "Silver membership costs $7,000 a year. [1]")
    assert not lacks_asked_kind(question, "Membership is free for non-profits. [1]")


def test_a_one_time_cleanup_counts_nothing() -> None:
    """"How many approvals …?" and the passages say only "more approvals than …": no count. "A
    one-time cleanup" holds no number either (before, its "one" was read as the count, and the
    comparison was quoted as the answer)."""
    doc = _passage("0266-move-tide-notes.md", "Internal details",
                   "A one-time cleanup of tide note markdown upon import to the harbour repository.\n\n"
                   "Tide notes require more approvals than harbour pull requests.")
    assert extractive_answer("How many approvals does a pull request for a new tide note need before it is "
                             "merged?", doc) == REFUSAL
    assert has_answer_type("number", "It needs two approvals.", frozenset())
