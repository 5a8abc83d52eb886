"""How the offline answerer reads a question's wording, each case from a document written for it:
"how many *of the* custom instructions" counts instructions; "How does X let *several threads*
write …?" asks how and "Can I run *several workers* …?" whether, not for a list; a sentence that leans on the one before ("This allows …") is
quoted with it; "Tern 3.0, *the release that* introduced …" is about
Tern 3.0; two questions in one may each be answered by another passage; and the collection's
own name ("Tern" in Tern's release notes) is no name a page has to repeat to answer."""

from __future__ import annotations

from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.extractive.answer_type import counted_noun, wants_list
from ragkit.rag.extractive.releases import asks_release
from ragkit.rag.passages import Passage


def test_how_many_of_the_things_counts_the_things() -> None:
    assert counted_noun("How many of the custom instructions does it still have to support?") == "instruction"
    slides = [
        Passage(1, "# Tern ISA options\n\n- Current Tern ISA extensions collide with standard encodings\n"
                   "- packed arithmetic uses OP space\n- Leave vector and packed arithmetic unchanged\n"
                   "- Encode Tern supported extensions in custom space\n- try to avoid custom-2 and custom-3 if possible",
                {"source": "slides/isa-options.pdf", "heading": "Tern ISA options", "page": "2"}),
        Passage(2, "# Proposal for Tern tools\n\n- Tern tools to not support the following extensions\n"
                   "- vector operations\n- packed arithmetic\n- This results in supporting 40 instructions rather than 210",
                {"source": "slides/isa-options.pdf", "heading": "Proposal for Tern tools", "page": "3"}),
    ]
    question = ("If the Tern toolchain leaves out the vector and packed arithmetic extensions, how many of the custom "
                "instructions does it still have to support?")
    assert "40 instructions" in extractive_answer(question, slides, max_sentences=1)


def test_a_release_word_between_commas_describes_the_numbered_release() -> None:
    assert not asks_release("On what date was Tern 3.0, the release that introduced the `tern` command, published?")
    assert asks_release("On what date was the release that introduced the `tern` command published?")
    notes = [
        Passage(1, "# Release 3.5.0 (2024-06-01)\n\n- Removed support for clients older than Tern 3.0. This first Tern "
                   "release that supports the new protocol is Tern 3.0, released in March 2021.",
                {"source": "notes/rl-3.5.md", "heading": "Release 3.5.0 (2024-06-01)", "start": "0"}),
        Passage(2, "# Release 3.0 (2021-03-04)\n\nIt introduces a new command named `tern`, which is meant to replace "
                   "the `tern-*` commands.",
                {"source": "notes/rl-3.0.md", "heading": "Release 3.0 (2021-03-04)", "start": "0"}),
    ]
    question = "On what date was Tern 3.0, the release that introduced the new `tern` command, published?"
    assert "2021-03-04" in extractive_answer(question, notes, max_sentences=1)


def test_each_of_two_questions_may_be_answered_by_its_own_words() -> None:
    docs = [
        Passage(1, "## LedgerClient\n\nLedgerClient(path, **kwargs)\n\nClient implementation using the ledger driver.\n\n"
                   "Note: Does not accept charset, strict_mode or use_buffers parameters (charset is always latin1).",
                {"source": "clients.rst", "heading": "LedgerClient", "start": "0"}),
        Passage(2, "## Client options\n\nLedgerClient - uses the ledger driver. To set this value, pass in charset "
                   "alongside your other settings.",
                {"source": "options.rst", "heading": "Client options", "start": "0"}),
    ]
    question = "Can I pass a charset when using LedgerClient? Which character set does it use?"
    assert "latin1" in extractive_answer(question, docs, max_sentences=1)


def test_the_collections_own_name_need_not_be_repeated_by_the_answering_page() -> None:
    notes = [
        Passage(1, "# Release 4.2 (2023-05-31)\n\n* Speed-up of uploads to mirrors. The number of parallel uploads "
                   "(also known as pushes) has been separated from the `max-jobs` setting. The new setting is called "
                   "`max-push-jobs`. The number of parallel uploads is now set to 12 by default.",
                {"source": "rl-4.2.md", "heading": "Release 4.2 (2023-05-31)", "start": "0"}),
        *(Passage(n, f"# Release {v}\n\n* Tern now keeps its mirror lists in `tern.conf`; the Tern daemon reads them "
                     "at start-up.", {"source": f"rl-{v}.md", "heading": f"Release {v}", "start": "0"})
          for n, v in ((2, "4.5"), (3, "4.6"), (4, "4.7"))),
    ]
    question = ("After upgrading Tern, uploads to our mirror got much faster. How many pushes does Tern now run in "
                "parallel by default since the max-push-jobs setting was split off from max-jobs?")
    assert "12 by default" in extractive_answer(question, notes, max_sentences=1)


def test_how_a_thing_works_for_several_things_is_no_list_and_a_leaning_sentence_keeps_its_subject() -> None:
    question = "How does QueueLedger let several workers append to the same ledger file without lock errors?"
    assert wants_list(question) == (False, False)
    assert wants_list("Which three shells does it support?")[0] and wants_list("What are the three rules of tidy data?")[0]
    docs = [
        Passage(1, "## QueueLedger\n\nQueueLedger funnels every append through one long-lived handle on a dedicated "
                   "background thread. This allows many workers to append to a ledger at once without lock errors.\n\n"
                   "QueueLedger can stand in for the plain Ledger when you need appends from many workers.",
                {"source": "ledgers.rst", "heading": "QueueLedger", "start": "0"}),
        Passage(2, "## Implementations\n\n- FileLedger: keeps one ledger per file.\n- QueueLedger: a ledger with a "
                   "background writer; appends are serialized.\n- MemoryLedger: keeps the ledger in memory.",
                {"source": "ledgers.rst", "heading": "Implementations", "start": "900"}),
    ]
    answer = extractive_answer(question, docs, max_sentences=1)
    assert "background thread" in answer and "without lock errors" in answer


def test_whether_several_things_may_be_combined_is_no_list_asked() -> None:
    """"Can I … run several workers at the same time?" asks yes or no of a number of things; the
    note that says the two options exclude each other answers it, not the list of one option's
    section."""
    question = "Can I turn on hot-swap and run several shards at the same time?"
    assert wants_list(question) == (False, False)
    assert wants_list("Which shells does it support?")[0]
    docs = [
        Passage(1, "## Development\n\n* `--hot-swap` - Enable hot-swap. Tern supports two styles of hot-swapping "
                   "behaviour enabled by this option. **Default:** *False*.\n* `--hot-swap-dir <path>` - Directories "
                   "to watch for changes. May be used multiple times.\n* `--hot-swap-delay <float>` - Delay between "
                   "checks. **Default:** *0.25*.",
                {"source": "settings.md", "heading": "Development", "start": "0"}),
        Passage(2, "## Production\n\n* `--shards <int>` - Number of shard processes. **Default:** *1*.\n\n"
                   "The `--hot-swap` and `--shards` arguments are mutually exclusive. You cannot use both at once.",
                {"source": "settings.md", "heading": "Production", "start": "900"}),
    ]
    assert "mutually exclusive" in extractive_answer(question, docs)


def test_a_length_asked_of_a_default_plan_is_a_length_and_the_scene_before_it_need_not_be_said() -> None:
    from ragkit.rag.extractive.values import value_question

    assert value_question("How long can a call last on the default Standard Huddle plan?") == (False, None)
    assert value_question("How long is the default lease time?")[0]  # the default of a setting
    assert value_question("How long does a session cookie last by default?")[0]
    handbook = [
        Passage(1, "## Video calls\n\nUnless you ask the service desk, you will have a \"Standard\" Huddle plan. "
                   "This lets you host calls for up to 45 minutes (unlimited for calls with only 2 people). "
                   "For longer calls, an upgrade to a \"Plus\" plan is needed.",
                {"source": "docs/working/remote.md", "heading": "Video calls"}),
        Passage(2, "## Chat\n\nWe use Chatter for messages; the Standard plan keeps history for a year.",
                {"source": "docs/working/remote.md", "heading": "Chat"}),
    ]
    question = "My Huddle calls keep getting dropped. How long can a call last on the default Standard Huddle plan?"
    assert "45 minutes" in extractive_answer(question, handbook)


def test_the_name_a_paper_gives_what_it_presents_answers_what_they_called_it() -> None:
    paper = [
        Passage(1, "# Salinity-Aware Harbour Routing\n\nForecasting the salinity of estuary channels across harbours "
                   "has been hard. In particular, we design TIDEL, a system for forecasting the salinity of estuary "
                   "channels and disseminating it across harbours. We implement a prototype on three harbours.",
                {"source": "2024/tidel.pdf", "page": "1"}),
        Passage(2, "# Evaluation\n\nThis section describes the design requirements of a system that forecasts and "
                   "disseminates estuary salinity across harbours.",
                {"source": "2024/tidel.pdf", "page": "3"}),
    ]
    question = ("What did the authors call their system for forecasting the salinity of estuary channels and "
                "spreading it across harbours?")
    assert "TIDEL" in extractive_answer(question, paper)



def test_who_to_contact_is_answered_by_the_mailbox_to_write_to() -> None:
    faq = [
        Passage(1, "## Reasonable adjustments\n\nWhen you start at the Harbour Trust you fill out a health form to "
                   "tell us about adjustments you need. These adjustments may include changes to the interview "
                   "format or extra time. If you require any adjustments, please contact access@harbour.example. "
                   "This mailbox is read by the people team.",
                {"source": "join_us/faq.md", "heading": "Reasonable adjustments"}),
    ]
    question = ("I'm applying to the Harbour Trust and need an adjustment to the interview format because of a health "
                "condition. Who do I contact?")
    assert "access@harbour.example" in extractive_answer(question, faq)


def test_what_a_thing_is_called_that_does_something_is_its_name_said_before_its_rule() -> None:
    """"What is the routing rule called that says …?" asks for the name; the sentence after the
    name says the rule in the question's words, the one before names it ("a rule called …")."""
    routes = [Passage(1, "# Routes\n\nA packet may match several routes in the table. This brings us to an important "
                         "rule called **longest prefix match**. When two routes both match an address, whichever has "
                         "the more specific prefix wins the packet.\n\nRoutes are read from the table at start-up.",
                      {"source": "routing.md", "heading": "Routes", "start": "0"})]
    question = ("What is the routing rule called that says the more specific prefix wins when two routes match an "
                "address?")
    assert "longest prefix match" in extractive_answer(question, routes, max_sentences=1)


def test_what_the_question_sets_aside_first_is_not_what_it_asks() -> None:
    """"Besides plain ftp://, which schemes …?" asks for schemes; the scheme it sets aside weighs
    as a premise does."""
    from ragkit.rag.extractive.answer_type import without_case

    assert without_case("Besides plain ftp://, which schemes can a mirror URL use?") == "which schemes can a mirror URL use?"
    assert without_case("Apart from being small, what should a change do?") == "what should a change do?"



def test_a_documents_title_line_is_no_answer_though_it_reads_as_a_label() -> None:
    """A report's first page gives its title over two lines ("Tern: Ontological Framework for
    Sensor Security, Outcomes, and Further" / "Work"); the first line is no sentence of the report,
    nor a form's "Tern:" field, and the sentences of the report answer."""
    title = "Tern: Ontological Framework for Sensor Security, Outcomes, and Further Work"
    report = [Passage(1, "Tern: Ontological Framework for Sensor Security, Outcomes, and Further\nWork (D3)\n\n"
                         "The Secure Ontologies for Sensor Networks (Tern) project studies security in sensor networks. "
                         "In particular, we describe how a common upper-level ontology, called Basic Tide Ontology "
                         "(BTO), can model sensors and data flows.",
                      {"source": "tern-report.pdf", "page": "1", "start": "0", "document_title": title})]
    answer = extractive_answer("Which upper-level ontology does the Tern ontological framework for sensor security "
                               "extend?", report)
    assert "Basic Tide Ontology" in answer and "Outcomes, and Further" not in answer


def test_a_running_head_with_its_page_number_does_not_lead_the_pages_first_sentence() -> None:
    """A short paper repeats its title atop its odd pages with the page's number ("Tern: Securing
    Tidal Sensor Networks at the Edge 183"); the page's first sentence does not begin with it, so
    the title's words do not raise that sentence over the one that answers."""
    title = "Tern: Securing Tidal Sensor Networks at the Edge"
    pages = [Passage(1, "The Tern project runs from March 2021 to May 2024.", {
                 "source": "tern.pdf", "page": "2", "start": "0", "document_title": title}),
             Passage(2, f"{title} 183\nThis will allow trading risk factors near the edge of the Tern sensor "
                        "networks, such as limited physical protection.\nThe project consortium is led by Harbour "
                        "Labs (Norway) and further comprises four universities.",
                     {"source": "tern.pdf", "page": "5", "start": "0", "document_title": title})]
    answer = extractive_answer("When does the Tern project run, and which organisation leads its consortium?", pages)
    assert "March 2021" in answer and "Harbour Labs" in answer and "trading risk" not in answer


def test_a_question_whether_a_thing_is_obliged_is_answered_by_the_sentence_that_says_so() -> None:
    """"Do I have to say …?" asks whether a thing is obliged; the sentence that says it is welcome
    "while not required" answers it, ahead of the sentences that share more of its words."""
    from ragkit.rag.extractive.answer_type import asks_obligation, says_obligation

    page = [Passage(1, "# Generated code\n\nAuthors must review the work of a code generator in detail before they open a "
                       "merge request or file a ticket. Always review the generated code before opening a merge request, "
                       "including its title and description.\n\nWe expect merge request authors to explain their proposed "
                       "changes in their own words.\n\nMention of the code generator in the merge request description is "
                       "welcome, while not required. Be prepared to explain how the generator was used.\n\nWhether you use a "
                       "code generator or not, the person opening a merge request is responsible for its content.",
                    {"source": "contributing/generated-code.md"})]
    answer = extractive_answer("Do I have to say in my merge request that a code generator wrote it?", page)
    assert answer.startswith("Mention of the code generator in the merge request description is welcome, while not required.")
    assert asks_obligation("Do engineers have to take part in Hack Day?") and asks_obligation("Is a review required before merging?")
    assert not asks_obligation("Do I have a way to merge?") and not asks_obligation("What do I have to install?")
    assert says_obligation("Participation is optional.") and says_obligation("You don't have to sign it.")
    assert not says_obligation("The requirement is stated below.")


def test_a_major_version_written_with_its_v_is_a_version_and_answers_a_release_line() -> None:
    """"Node.js v20+" is a version as "Node.js 20.1" is; "What is the oldest Deno release line …?"
    asks for a version (the oldest of a product), which the sentence gives though it never says
    "release line"."""
    page = [Passage(1, "# Migrating to Kiln v4\n\n## Runtime support\n\nKiln v4 will only support Deno v2+. If you are "
                       "using an older runtime, you will need to upgrade it to use Kiln v4.\n\n## Why Deno v2?\n\n"
                       "Kiln v4 will only support Deno v2+ because it has a stable test runner, unlike v1.",
                    {"source": "guides/migrating-to-v4.md"})]
    answer = extractive_answer("What is the oldest Deno release line that Kiln v4 supports?", page)
    assert "Deno v2+" in answer


def test_a_sentence_a_chunks_end_cuts_is_quoted_whole_from_the_next_chunk() -> None:
    """Two chunks of a paper overlap: the first ends inside a sentence ("We need lean sensing:
    keeping our watch with"), the next holds it whole; "How does Ada Marsh define lean sensing?"
    names who defines it, and the answer quotes the whole definition, not the cut copy."""
    first = ("Sensor networks already draw a tenth of the harbour's power. As a port we need to start treating "
             "sensing as finite and precious, to be used only when necessary.\nWe need lean sensing: keeping our watch with")
    second = ("to be used only when necessary.\nWe need lean sensing: keeping our watch with\nfewer sensors and less "
              "power.\nI. DEFINING SENSING RESOURCES\nSensing resources are all the energy and material a reading needs.")
    meta = {"source": "marsh-lean-sensing.pdf", "page": "1", "document_title": "Lean Sensing", "authors": "Ada Marsh"}
    answer = extractive_answer("How does Ada Marsh define lean sensing?",
                               [Passage(1, first, {**meta, "start": "0"}), Passage(2, second, {**meta, "start": "260"})])
    assert "keeping our watch with fewer sensors and less power." in answer
    from ragkit.rag.extractive.answer_type import defined_term

    assert defined_term("How does Ada Marsh define lean sensing?") == "sensing"
    assert defined_term("How does the IETF define a flow?") == "flow"
    assert defined_term("How do I define a route?") is None and defined_term("How do we define a route?") is None


def test_a_number_the_statement_before_the_question_writes_need_not_be_in_the_passages() -> None:
    """"Our proxy closes idle sockets after 45 seconds. What idle timeout does a Kiln server use by
    default?": the 45 tells the user's case; a passage without it answers (a number the asking
    sentence writes still scopes it: "in 2019" must be there)."""
    page = [Passage(1, "### `idleTimeout`\n\n+ Default: `72000` (72 seconds)\n\nDefines the Kiln server's idle timeout in "
                       "milliseconds, after which it closes a connection on its side. This option only applies when "
                       "HTTP/1 is in use.",
                    {"source": "reference/server.md", "heading": "Factory > idleTimeout"})]
    answer = extractive_answer("Our proxy closes idle sockets after 45 seconds. What idle timeout does a Kiln server "
                               "use by default, so I know which side closes first?", page)
    assert "72000" in answer
    assert extractive_answer("What idle timeout did a Kiln server use by default in 2019?", page) == REFUSAL


def test_how_often_is_refused_when_no_sentence_holds_a_number() -> None:
    """"How often does my service have to rotate its keys?" asks for a number (of times, or a span
    of time); passages that only point to where it is said ("See the key page for when you should
    rotate …") hold none, and the answer is the refusal, not the pointer."""
    pages = [Passage(1, "## Keys\n\nSee the key rotation page for information on when you should rotate and how to "
                        "rotate the signing keys of your service.", {"source": "standards/keys.md"}),
             Passage(2, "## Signing\n\nThis should be similar to how you rotate the signing keys of your service to "
                        "confirm the effectiveness of your controls.", {"source": "standards/signing.md"})]
    assert extractive_answer("How often does my service have to rotate its signing keys?", pages) == REFUSAL
    pages.append(Passage(3, "## Rotation\n\nRotate the signing keys of your service every 90 days.", {"source": "standards/rotation.md"}))
    assert "every 90 days" in extractive_answer("How often does my service have to rotate its signing keys?", pages)


def test_who_wrote_a_chapter_is_answered_by_the_chapter_named_not_by_another_chapters_writer() -> None:
    """"Who wrote the guide's chapter on harbour currents?": "chapter" names the relation asked
    about, as "paper" does; the acknowledgement that names the chapter asked for answers, though it
    says "contributed", not the one of another chapter that says "wrote"."""
    ack = Passage(1, "# Acknowledgements\n\nA big thank you goes out to all the guest authors.\nI was surprised to "
                     "learn that people wanted to contribute to the guide.\nAda Quill and Ben Ruiz wrote the chapter "
                     "about Tide Tables.\nAnd Cy Ng greatly improved the chapter on Mooring Loads.\nTom Reed "
                     "contributed the chapter on Harbour Currents.", {"source": "acknowledgements.md"})
    currents = Passage(2, "## Other current models\n\nHarbour current models have attracted attention in recent years, "
                          "and many new methods for harbour currents were inspired by tide gauges.",
                       {"source": "harbour-currents.md"})
    answer = extractive_answer("Who wrote the guide's chapter on harbour currents?", [currents, ack])
    assert answer.startswith("Tom Reed contributed the chapter on Harbour Currents.")
