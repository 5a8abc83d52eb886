"""What a question's clauses say about what it asks: a scene set first ("When I give a range like
3:7, *are* the indexes one-based?") asks no date; a default the question rules out ("…, assuming no
default value was passed?") asks no value; an illustration ("…, like an interval?", "takeLast(3)")
names nothing a passage must say; an exit code is stated by how a program exits ("exits 0 on
success, 1 if …"); "how many …" asked of a default wants the number the default is, not an
example's; and a sentence that says what does not serve reads on to the one after it that says
what does ("For that, …"); "Who may …?" is answered by a restriction ("limited to authorized source
IP addresses"), as by a group of people. Each document is written for the test, in the shape of a page where the
answerer went wrong; the embedding model's nearness, where the answerer reads it, is a stand-in
that finds the answering sentence near."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.answer_type import answer_type
from ragkit.rag.extractive.query import read_question
from ragkit.rag.extractive.values import value_question

from .test_extractive_meaning import Nearness
from .test_extractive_said_kind import _passages

MANUAL = _passages(
    ("## EXIT STATUS\n\nThe mhead utility exits 0 on success, 1 if no field was printed, and >1 if an "
     "error occurs.", "mhead.1"),
    ("## EXIT STATUS\n\nThe mlist utility exits 0 on success, and >0 if an error occurs.", "mlist.1"),
    ("## NAME\n\nmhead print message fields", "mhead.1"),
)

RANGES = _passages(
    ("## Ranges\n\nA message argument may be a range. Ranges have the format start:stop, where start and "
     "stop are one-based indexes into the sequence. Negative numbers count from the end.", "mrange.7"),
)

OPERATORS = _passages(
    ("## function keepLast(count)\n\nWaits for the source to complete, then emits the last `count` values. "
     "Warning: Using `keepLast` with a stream that never completes will result in a stream that never "
     "emits a value.", "operators/keepLast.md"),
    ("## function keep(count)\n\nEmits only the first `count` values.\n\n- See: `keepLast`", "operators/keep.md"),
    ("```ts\nconst ticks = interval(1000);\nconst firstThree = ticks.pipe(keep(3));\n```", "operators/keep.md"),
)

BUDGET = _passages(
    ("## Retries\n\nThe [`Planner`] makes it easier to say which requests to retry, with good practice by\n"
     "default, such as a retry budget.\n\nThe default retry behaviour of a client is to retry only requests\n"
     "known to be safe.\n\nAll policies default to including a retry budget that permits 20% extra\n"
     "requests to be sent.", "retries.md"),
    ("## fn Planner.max_extra_load(extra: f32)\n\nSets the max extra load the budget will allow.\n\nFor "
     "example, if you send 1,000 requests per second, a maximum extra load value of `0.3` would allow 300\n"
     "more requests per second in retries.", "retries.md"),
)

PROFILERS = _passages(
    ("## Profiling\n\nThere are three application profilers in the kit: prof, cprof and mprof. Note that none "
     "of these tools give kernel profile statistics. For that, the memdev driver should be used. All the "
     "tools share one library module.", "profiling.md"),
)

GUARDRAILS = _passages(
    ("## Network Security Services\n\nKey considerations:\n\n- Perimeter security services must be enabled "
     "in alignment with the Harbour Secure Connectivity Requirements and HSR-22.\n- Access to cloud storage "
     "shall be limited to authorized source IP addresses only.", "09_Network-Security.docx"),
)


def test_an_exit_code_is_stated_by_how_the_program_exits() -> None:
    """"What exit code …?": the page never says "code"; "exits 0 on success, 1 if no field was
    printed" states it, and is no answer to another question."""
    answer = extractive_answer("What exit code does mhead return when none of the requested fields was printed?",
                               MANUAL, similarity=Nearness("1 if no field"))
    assert "1 if no field was printed" in answer


def test_a_scene_set_before_a_yes_no_question_asks_no_date() -> None:
    """"When I give a range …, are the indexes zero-based or one-based?" opens with "When" but asks
    which of two: the clause before the comma sets the scene (a time asked for is still one)."""
    assert answer_type("When I give a range like 3:7, are the indexes zero-based or one-based?")[0] is None
    assert answer_type("When was the range syntax added?")[0] == "date"
    answer = extractive_answer("When I give a range as a message argument, are the indexes zero-based or "
                               "one-based?", RANGES, similarity=Nearness("one-based"))
    assert "one-based" in answer


def test_a_default_ruled_out_asks_no_value() -> None:
    """"…, assuming no default value was passed?" asks what happens without one, not a default."""
    assert value_question("What error does pick deliver when the index is negative, assuming no default "
                          "value was passed?") == (False, None)
    assert value_question("What is the default value of the index?")[0]


def test_an_illustration_names_nothing_a_passage_must_say() -> None:
    """"What will I get if I apply keepLast(3) to a stream that never completes, like an interval?":
    the 3 and the interval only illustrate; the warning of keepLast's page answers, not the page of
    keep that writes "keep(3)" in its example and points to keepLast."""
    query = read_question("What will I get if I apply keepLast(3) to a stream that never completes, like an "
                          "interval?")
    assert not query.numbers and not query.asked_numbers
    assert {"3", "interval"} <= query.examples
    answer = extractive_answer("What will I get if I apply keepLast(3) to a stream that never completes, like "
                               "an interval?", OPERATORS, similarity=Nearness("never emits"))
    assert "never emits a value" in answer


def test_how_much_of_a_default_wants_the_number_the_default_is() -> None:
    """"By default, how much extra load …?": the sentence that says the default and a number
    answers, not an example's "0.3" nor a sentence that says "by default" of a type's name."""
    answer = extractive_answer("By default, how much extra load on top of normal traffic does a client's retry "
                               "budget allow?", BUDGET)
    assert answer != REFUSAL
    assert "20%" in answer
    assert "0.3" not in answer


def test_a_sentence_that_rules_a_tool_out_reads_on_to_what_serves_instead() -> None:
    """"Note that none of these tools give kernel profile statistics." alone answers "What should I
    use …?" with what not to use; "For that, the memdev driver should be used." is the answer."""
    answer = extractive_answer("The profilers only show what my application does. What should I use if I want "
                               "profile statistics for the kernel?", PROFILERS, similarity=Nearness("none of these"))
    assert "For that, the memdev driver should be used." in answer


def test_who_may_is_answered_by_a_restriction() -> None:
    """"Who should be allowed to reach our cloud storage …?": the item that limits access to
    authorized addresses answers, not the one naming a requirements document in capitals."""
    answer = extractive_answer("Who should be allowed to reach our cloud storage over the network?", GUARDRAILS)
    assert "limited to authorized source IP addresses" in answer
    assert "Requirements" not in answer


BERTHS = _passages(
    ("# Unresponsive berth\n\nThe harbour console may report UnresponsiveBerthDetected.\n\n## Diagnose\n\n"
     "1. Log in to the berth reported as the destination.\n2. Once you have logged in, check that "
     "the mooring service is working by a local ping. Use the port defined as mooringEndpointPort\n"
     "run `Test-Berth localhost -Port <port-number>`\n3. If the local ping succeeds, log in to the berth that "
     "reported the event. Run the same steps as in 2, but replace localhost with the address of the berth "
     "reported as destination.", "Unresponsive berth.md"),
)


def test_a_case_stated_first_after_a_statement_leaves_the_question_that_follows_it() -> None:
    question = ("The harbour console reports UnresponsiveBerthDetected. After I log in to the destination berth, "
                "which command do I use to ping the mooringEndpointPort locally?")
    asked = read_question(question)
    assert asked.kind == "value" and asked.form.startswith("After I log in")
    answer = extractive_answer(question, BERTHS, max_sentences=1)
    assert "`Test-Berth localhost -Port <port-number>`" in answer


def test_a_heading_that_ends_with_a_colon_labels_an_answer_with_one_colon() -> None:
    question = ("The harbour console reports UnresponsiveBerthDetected. After I log in to the destination berth, "
                "which command do I use to ping the mooringEndpointPort locally?")
    passages = _passages((BERTHS[0].text.replace("## Diagnose\n", "## Diagnose:\n"), "Unresponsive berth.md"))
    answer = extractive_answer(question, passages, max_sentences=1)
    assert answer.startswith("Diagnose: ") and "::" not in answer
