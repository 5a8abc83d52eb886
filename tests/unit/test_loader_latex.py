"""LaTeX sources (.tex): the text a reader sees, sections as headings, tables as rows, mathematics
as written; written by the test as papers and pandoc write them."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.base import loader_name_for
from ragkit.registry import loaders
from ragkit.splitters.markdown import MarkdownSplitter
from ragkit.types import Document

PAPER = r"""\documentclass[runningheads]{llncs}
\usepackage{graphicx} % figures
\newcommand{\note}[1]{\textcolor{red}{#1}}
\begin{document}
\title{Tides at \emph{Gull Haven}}
\author{Ann Lind\orcidID{0000-0002-3723-6960}}
\maketitle
\begin{abstract}
The spring tide reached 4.2 metres; 50\% of gauges agree.\footnote{See~\cite{lind2020}.}
\end{abstract}
\section{Methods}\label{sec:methods}
We used \textbf{two} gauges (Fig.~\ref{fig:map}), see \href{https://example.org}{the survey}.
% a comment nobody should read
\begin{itemize}
  \item low water
  \item high water
\end{itemize}
\subsection*{Fares \& tables}
\begin{table}[h]\centering
\begin{tabular}{|l|r|}
\hline
Port & Fare \\ \hline
Bergen & 40 \\
\end{tabular}
\caption{Fares in kroner}\label{tab:fares}
\end{table}
The height is $h = \frac{a}{2}$ and
\begin{equation}
  E = mc^2 \label{eq:e}
\end{equation}
\includegraphics[width=\linewidth]{map.png}
\end{document}
% after the end: ignored
"""


def load(path: Path) -> list[Document]:
    return list(loaders.get("latex")().load(path, source=path.name))


def test_tex_files_pick_the_latex_loader() -> None:
    assert {loader_name_for(Path(f"p.{ext}")) for ext in ("tex", "latex", "ltx")} == {"latex"}


def test_the_text_a_reader_sees(tmp_path: Path) -> None:
    path = tmp_path / "paper.tex"
    path.write_text(PAPER, encoding="utf-8")
    [doc] = load(path)
    assert doc.metadata["title"] == "Tides at Gull Haven" and doc.metadata["markup"] == "markdown"
    text = doc.text
    assert "The spring tide reached 4.2 metres; 50% of gauges agree. See ." in text
    assert "# Methods\n" in text and "## Fares & tables\n" in text
    assert "We used two gauges (Fig. ), see the survey." in text
    assert "- low water" in text and "- high water" in text
    assert "Port | Fare\n" in text and "Bergen | 40\n" in text and "Fares in kroner" in text
    assert "height is $h = \\frac{a}{2}$ and" in text and "E = mc^2 \\label{eq:e}" in text  # mathematics as written
    for gone in ("usepackage", "llncs", "newcommand", "orcid", "comment nobody", "lind2020", "sec:methods",
                 "map.png", "linewidth", "hline", "tabular", "after the end", "\\textbf", "\\item"):
        assert gone not in text.replace("\\frac{a}{2}", "").replace("\\label{eq:e}", ""), gone


def test_sections_cut_the_chunks(tmp_path: Path) -> None:
    path = tmp_path / "paper.tex"
    path.write_text(PAPER, encoding="utf-8")
    [doc] = load(path)
    chunks = MarkdownSplitter(chunk_size=300, chunk_overlap=0, unit="chars").split(doc)
    fares = next(c for c in chunks if "Bergen | 40" in c.text)
    assert "low water" not in fares.text and "spring tide" not in fares.text


def test_a_chapter_file_without_a_preamble_and_hostile_braces(tmp_path: Path) -> None:
    path = tmp_path / "chapter.tex"
    path.write_text("\\chapter{Ferries}\nThe ferry \\textbf{leaves" + "{" * 20000 + " at nine.\n", encoding="utf-8")
    [doc] = load(path)
    assert doc.text.startswith("# Ferries\n\nThe ferry leaves") and doc.text.endswith("at nine.\n")
    assert doc.metadata["title"] == "chapter"


def test_runs_of_math_openers_are_read_in_one_pass_and_math_after_them_still_reads() -> None:
    from ragkit.loaders.latex import latex_to_markdown

    # a display holds no opener of its own kind, so each unclosed one of a run fails at the next
    # (a run of 500,000 took two minutes when each was scanned 20,000 characters ahead)
    text, _ = latex_to_markdown("\\[" * 50_000 + " then \\[ E = mc^2 \\] and \\begin{equation}" * 2
                                + "a = b \\end{equation} end")
    assert "\\[ E = mc^2 \\]" in text and "\\begin{equation}a = b \\end{equation}" in text


def test_inline_math_of_a_number_or_a_name_reads_as_its_text() -> None:
    """A paper writes its figures in math mode ("occupies $6.2$ kB", "the $n$ youngest bins"): a
    reader sees "6.2 kB", and a question's "6.2 kB" must meet it. Mathematics with any operator,
    command or space stays as written."""
    from ragkit.loaders.latex import latex_to_markdown

    text, _ = latex_to_markdown(r"A buoy log occupies $6.2$ kB, so $m$ logs need $6.2m$ kB; keep the $n$ youngest. "
                                r"The height is $h = \frac{a}{2}$, the ratio $\tau$ and $10^6$ samples; $$k$$ stays.")
    assert "occupies 6.2 kB, so m logs need 6.2m kB; keep the n youngest." in text
    assert "$h = \\frac{a}{2}$" in text and "$\\tau$" in text and "$10^6$" in text and "$$k$$" in text


DECK = r"""\documentclass[12pt,t]{beamer}
\usetheme{default}
\definecolor{lolit}{rgb}{0.5,0.5,0.5}
\setbeamertemplate{footline}{}
\title{Harbour safety}
\begin{document}
\frame{\titlepage}
\section{Berthing}
\begin{frame}[fragile]{Mooring lines}
\begin{itemize}
\item<1-> Use two bow lines
\item<2-| handout:0> Check them \alert<2>{every hour}
\end{itemize}
\end{frame}
\begin{frame}
\frametitle{Tides}
Spring tides reach 4.2 metres.
\end{frame}
\begin{frame}{\only<1>{Before the storm}\only<2|handout 0>{After the storm}}
Double the lines.
\end{frame}
\end{document}
"""


def test_a_beamer_decks_slides_are_headings_without_overlays_or_theme_settings() -> None:
    from ragkit.loaders.latex import latex_to_markdown

    text, title = latex_to_markdown(DECK)
    assert title == "Harbour safety"
    assert "# Berthing\n\n## Mooring lines\n\n- Use two bow lines\n\n- Check them every hour\n" in text
    assert "## Tides\n\nSpring tides reach 4.2 metres." in text
    assert "## Before the storm After the storm\n\nDouble the lines." in text
    for leaked in ("<", "lolit", "rgb", "footline", "default", "fragile"):
        assert leaked not in text


def test_a_line_break_keeps_its_paragraph_and_printed_characters_are_text() -> None:
    from ragkit.loaders.latex import latex_to_markdown

    text, _ = latex_to_markdown("\\begin{document}\nThe tide is the {\\bf harbour's} clock,\\\\\n"
                                "every sailor says. \\\\[4pt]\nAsk ``first''.\n\n"
                                "{\\textendash} Ann Pilot\\ldots\n\\end{document}\n")
    assert text == "The tide is the harbour's clock,\nevery sailor says.\nAsk “first”.\n\n– Ann Pilot…\n"
