"""Perl POD (.pod, and the POD of a .pm module): read with no extra package as Markdown-structured
text, so its =head sections cut the chunks, =item lists are Markdown lists, verbatim paragraphs are
fenced code and an answer quotes no formatting code; written by the test as a CPAN module writes
its documentation, about an invented harbour ferry timetable module."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.loaders.pod import PodLoader, pod_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from tests.unit.linear_time import assert_linear

MODULE = """package Harbour::Ferry;
use strict;
use warnings;

our $VERSION = '1.04';

=encoding utf8

=head1 NAME

Harbour::Ferry - sailing times and tide windows for the island ferry

=head1 SYNOPSIS

    use Harbour::Ferry;
    my $ferry = Harbour::Ferry->new(berth => 'North Quay');

    print $ferry->next_sailing, "\\n";

  $ ferry-times --berth "North Quay" --days 3

=head1 DESCRIPTION

B<Harbour::Ferry> reads the timetable in F</etc/harbour/ferry.conf> and
compares sailings with C<< $tide <=> $draught >>; see L<Harbour::Tides> and
L<the harbour office|https://harbour.example.org/office>.X<ferry>

=begin html

<p class="note">Only the web page shows this.</p>

=end html

=for comment The winter timetable is still a draft.

=for text Sailings stop when the wind is above force 8.

=head2 Options

=over 4

=item B<--berth> I<name>

The quay the ferry leaves from (default C<North Quay>).

A berth is named as the harbour office names it, E<lt>North QuayE<gt> or
E<lt>Old SlipE<gt>.

=item B<--days> I<n>

How many days of sailings to print; the default is 2 days.

=item C<--max-wait>

The longest wait in minutes for the tide window, default 45.

=back

=head3 Steps

=over

=item 1.

Check the tide table.

=item 2.

Board at the S<North Quay> ramp:

=over 4

=item *

foot passengers first,

=item * then cars.

=back

=back

=head2 Methods

=head3 C<next_sailing>

Returns the next sailing as C<HH:MM>; see L</"Tide windows"> and
L<Harbour::Tides/"Slack water">. Prices are in E<pound>, I<B<not>> euros E<0x263A>.
Z<>

=cut

sub next_sailing {
    my ($self) = @_;
    return $self->{sailings}[0];
}

1;
__END__

Ferry data kept after the end of the code.

=head2 Tide windows

A sailing waits for a tide of at least 1.8 m.
"""


def _md() -> str:
    return pod_to_markdown(MODULE, name="Ferry")[0]


def test_pod_and_perl_modules_pick_the_pod_loader() -> None:
    assert loader_name_for(Path("perlferry.pod")) == "pod"
    assert loader_name_for(Path("lib/Harbour/Ferry.pm")) == "pod"
    assert loader_name_for(Path("FERRY.POD")) == "pod"
    assert isinstance(loaders.get("pod")(), PodLoader)


def test_the_name_line_titles_the_document_and_is_its_first_paragraph() -> None:
    text, title = pod_to_markdown(MODULE, name="Ferry")
    assert title == "Harbour::Ferry"
    lines = text.splitlines()
    assert lines[0] == "# Harbour::Ferry"
    assert "Harbour::Ferry - sailing times and tide windows for the island ferry" in lines
    assert "## NAME" not in lines and "NAME" not in lines
    assert "## SYNOPSIS" in lines and "## DESCRIPTION" in lines
    assert "### Options" in lines and "#### Steps" in lines and "#### next_sailing" in lines
    assert "### Tide windows" in lines


def test_without_a_name_the_first_head1_else_the_stem_titles_it() -> None:
    text, title = pod_to_markdown("=head1 Ferry timetable\n\nSailings at nine.\n\n=head1 Fares\n\nTen.\n")
    assert title == "Ferry timetable"
    assert text == "# Ferry timetable\n\nSailings at nine.\n\n## Fares\n\nTen.\n"
    text, title = pod_to_markdown("=pod\n\nSailings at nine.\n", name="ferry")
    assert title is None and text == "# ferry\n\nSailings at nine.\n"


def test_verbatim_paragraphs_are_one_fenced_block_and_a_prompt_is_a_console() -> None:
    text = _md()
    assert ("```perl\nuse Harbour::Ferry;\nmy $ferry = Harbour::Ferry->new(berth => 'North Quay');\n\n"
            'print $ferry->next_sailing, "\\n";\n```') in text
    assert '```console\n$ ferry-times --berth "North Quay" --days 3\n```' in text


def test_formatting_codes_read_as_their_text_and_code_spans() -> None:
    text = _md()
    assert ("Harbour::Ferry reads the timetable in `/etc/harbour/ferry.conf` and compares sailings with "
            "`$tide <=> $draught`; see Harbour::Tides and the harbour office.") in text.splitlines()
    assert ('Returns the next sailing as `HH:MM`; see "Tide windows" and "Slack water" in Harbour::Tides. '
            "Prices are in £, not euros ☺.") in text.splitlines()
    for markup in ("B<", "C<", "L<", "E<", "X<", "Z<", "I<", "S<", "ferry>", "=item", "=over", "=head"):
        assert markup not in text, markup


def test_codes_nest_and_take_more_brackets() -> None:
    assert pod_to_markdown("=pod\n\nB<C<foo>> and C<B<x> y> and C<<< a >> b >>> and C<<$x>>.\n")[0] == (
        "`foo` and `x y` and `a >> b` and `<$x`>.\n")
    assert pod_to_markdown("=pod\n\nL<https://example.org/ferry> L<perlpod/Formatting Codes> "
                           "L<a E<verbar> b|x> E<sol> E<9786> E<075> E<amp>\n")[0] == (
        'https://example.org/ferry "Formatting Codes" in perlpod a | b / ☺ = &\n')
    assert pod_to_markdown("=pod\n\nC<a`b> and C<`x`>\n")[0] == "``a`b`` and `` `x` ``\n"


def test_items_are_list_entries_terms_with_their_description() -> None:
    text = _md()
    assert ("- --berth name: The quay the ferry leaves from (default `North Quay`).\n\n"
            "    A berth is named as the harbour office names it, <North Quay> or <Old Slip>.\n\n"
            "- --days n: How many days of sailings to print; the default is 2 days.\n"
            "- `--max-wait`: The longest wait in minutes for the tide window, default 45.\n") in text
    assert ("1. Check the tide table.\n2. Board at the North Quay ramp:\n"
            "    - foot passengers first,\n    - then cars.\n") in text


def test_a_term_item_without_a_description_and_an_item_holding_code() -> None:
    text = pod_to_markdown("=over\n\n=item --quiet\n\n=item --verbose\n\nPrints more.\n\n"
                           "    ferry --verbose\n\nAfter the example.\n\n=back\n\nOutside.\n")[0]
    assert text == ("- --quiet\n- --verbose: Prints more.\n\n    ```perl\n    ferry --verbose\n    ```\n\n"
                    "    After the example.\n\nOutside.\n")


def test_other_formats_are_left_out_and_text_regions_kept() -> None:
    text = _md()
    assert "Sailings stop when the wind is above force 8." in text
    for gone in ("web page", "class=", "winter timetable", "encoding", "utf8"):
        assert gone not in text, gone
    text = pod_to_markdown("=begin markdown\n\n**Fares** in `GBP`\n\n=end markdown\n\n"
                           "=begin man\n\n.SH FARES\n\n=end man\n\n=begin text\n\n# not a heading\n\n=end text\n")[0]
    assert text == "**Fares** in `GBP`\n\n\\# not a heading\n"


def test_a_modules_code_is_fenced_and_the_data_after_end_left_out() -> None:
    text = _md()
    assert text.splitlines()[2:7] == ["```perl", "package Harbour::Ferry;", "use strict;", "use warnings;", ""]
    assert ("```perl\nsub next_sailing {\n    my ($self) = @_;\n    return $self->{sailings}[0];\n}\n\n1;\n```"
            ) in text
    assert "Ferry data kept" not in text and "__END__" not in text
    assert pod_to_markdown("package Ferry;\n\nsub fare { 10 }\n1;\n", name="Ferry") == (
        "# Ferry\n\n```perl\npackage Ferry;\n\nsub fare { 10 }\n1;\n```\n", None)


def test_a_pod_file_loads_with_its_title_and_its_sections_cut_the_chunks(tmp_path: Path) -> None:
    path = tmp_path / "Ferry.pm"
    path.write_text(MODULE, encoding="utf-8")
    (doc,) = PodLoader().load(path, source=path.name)
    assert doc.metadata["title"] == "Harbour::Ferry" and doc.metadata["markup"] == "markdown"
    assert doc.metadata["mime"] == "text/x-pod"
    chunks = MarkdownSplitter(chunk_size=300, chunk_overlap=0, unit="chars").split(doc)
    options = [c for c in chunks if "--max-wait" in c.text]
    assert options and "Options" in options[0].metadata["headings"]
    pod = tmp_path / "ferry-notes.pod"
    pod.write_text("Text before any command.\n\n=head2 Fares\n\nTen pounds.\n", encoding="utf-8")
    (doc,) = PodLoader().load(pod, source=pod.name)
    assert doc.metadata["title"] == "ferry-notes"
    assert doc.text == "# ferry-notes\n\nText before any command.\n\n### Fares\n\nTen pounds.\n"


def test_the_offline_answerer_quotes_an_options_default_without_markup() -> None:
    text = _md()
    answer = extractive_answer("What is the default for the longest wait for the tide window?",
                               [Passage(1, text, {"source": "Ferry.pm", "title": "Harbour::Ferry"})])
    assert "45" in answer
    for markup in ("C<", "B<", "=item", "E<"):
        assert markup not in answer


def test_malformed_pod_is_written_out_as_text() -> None:
    text = pod_to_markdown("=head2 Fares C<unclosed\n\nB<bold and L<link\n\n=back\n\n=end html\n\n"
                           "=item orphan\n\nE<nosuchname> E<0x110000> C<< no close\n\n=frobnicate Some words\n\n"
                           "=over\n\n=over\n\n=item * deep\n\n=begin\n\nstill here\n")[0]
    assert text.splitlines() == ["### Fares C<unclosed", "", "B<bold and L<link", "",
                                 "- orphan: E<nosuchname> E<0x110000> C<< no close", "", "    Some words", "",
                                 "    - deep", "", "        still here"]
    assert pod_to_markdown("=head1", name="x") == ("# x\n", None)
    assert pod_to_markdown("=cut\n=cut\n\n=over 4\n\n=item", name="t")[0] == "# t\n\n-\n"


def test_hostile_inputs_run_in_linear_time() -> None:
    hostile = [
        lambda k: "=pod\n\n" + "B<" * k + "x" + ">" * k,
        lambda k: "=pod\n\n" + "L<a" * k + ">" * k,
        lambda k: "=pod\n\n" + "E<x" * k + ">" * k,
        lambda k: "=pod\n\n" + "C<" * k,
        lambda k: "=pod\n\n" + "C" + "<" * 2 * k + " x " + "> " * k,
        lambda k: "=pod\n\nC<< " + " >" * 2 * k,
        lambda k: "=pod\n\n" + "<>" * 2 * k,
        lambda k: "=over\n\n" * k + "=item x\n\n" * 1000 + "=back\n\n" * k,
        lambda k: "=begin html\n\n" * k + "text\n",
        lambda k: "=item\n" * k,
        lambda k: "=pod\n\n" + "x" * 10 * k,
        lambda k: " " * 10 * k + "x\n",
        lambda k: "=pod\n\n" + " " * 10 * k + "x\n",
        lambda k: "=head1 NAME\n\n" + " " * 10 * k + "- x\n",
        lambda k: "=pod\n\n    " + "`" * 10 * k + "\n",
    ]
    for make in hostile:
        assert pod_to_markdown(make(1_000), name="h")[0].startswith("# ")
        assert_linear(lambda pod: pod_to_markdown(pod, name="h"), make, 100_000)
