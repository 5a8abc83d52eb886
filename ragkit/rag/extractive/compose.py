"""Writing the extractive answer from scored candidates: every piece of passage text it quotes is
followed by that passage's ``[n]`` marker.

- *sentences*: the best 1-3 (within 60 % of the best score, 80 % when the best holds the date,
  number or name asked for), best first; quotes of one paragraph that share a sentence (two
  neighbouring sentences read as one, for a yes/no, why or conditional question) are quoted
  once, as the run of sentences they cover;
  a list item quoted alone is prefixed with its section heading ("Tern 1.2.0: First release …");
  for a question that asks for several things ("Which two backends …?"), a further sentence of
  another document may match by its heading more than by its own words (parallel advisories);
- *a list*: when the question asks for one ("the three rules", "what are the steps"), the list
  whose intro, items or section match best (a list right after a good sentence's paragraph, in
  its section, is introduced by that paragraph, colon or not: "… You can adjust this with
  vertical_overflow." and its values), or one in the best passage (a numbered one for steps), with
  the sentence right after it that speaks of its items as a whole ("You can install all of these
  with …"); and whenever the best
  sentence introduces a list ("These are the rules:"), the intro and all its items; a best
  sentence that introduces a table ("Support for version 1 implies the following:") answers a
  list question with the table's rows, as it would with a list's items;
- *how-to*: the sentences (from the best sentence's page only), then the code block of the best
  sentence's section (the first one
  after it, else the last one before it); a console block keeps only its ``$`` command lines, not
  the pasted build output. When the best is a description line that a command follows ("- Add a
  remote:" then "`git remote add …`", a command reference's layout), that line and its command;
- *a value* ("What is the default value of dev_addr?"): the sentence or line that states it,
  after the heading the question names when it does not say it ("dev_addr: default: …"); a
  sentence ending with a colon ("Default:", reStructuredText's "The default is::") is followed by
  the code block it introduces, whatever the question, and so is any quoted sentence that
  introduces one ("And on Windows:"), the answer ending there;
- *a colon's value*: any other quoted sentence that ends with a colon ("… for the following
  project:") is followed by the short lines after it that complete it ("KEN SARGENT HOUSE"),
  so an answer never stops at the colon;
- *a reason* (a why question): a sentence that gives none is completed where the reason is
  (``ragkit.rag.extractive.reasons``): the sentence after it that opens with a consequence
  ("Otherwise, …"), or the fact before a piece of advice ("X imports the modules." before "make
  sure their main routine is protected").
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import replace

from ragkit.rag.extractive.answer_type import has_answer_type
from ragkit.rag.extractive.reasons import consequent, grounds, sequel
from ragkit.rag.extractive.text import NUMBER, stem
from ragkit.rag.extractive.units import Candidate, Unit, last_position, passage_of
from ragkit.rag.extractive.values import gloss

_SENTENCE_SHARE = 0.6  # further sentences must score this share of the best
_TYPED_SHARE = 0.8  # ... when the best holds the date, number or name asked for (one answer is wanted)
_LIST_SHARE = 0.5  # a list must be this close to the best candidate to answer a list question
_ORDERED_BONUS = 1.3  # a numbered list for a question about steps
_TABLE_ROWS = 20  # at most this many rows of the table after a sentence answer a list question
_COMPLETING_LINES = 2  # how many lines after a sentence ending with a colon complete it
_COMPLETING_WORDS = 25  # ... each of at most this many words
_ITEM_CODE_LINES = 8  # a list item's code block of at most this many lines is quoted with it


def _list_of(u: Unit, units: Sequence[Unit], *, paragraph: bool = False) -> tuple[Unit | None, list[Unit]] | None:
    """The list ``u`` belongs to or introduces, as (intro sentence or None, items); with
    ``paragraph`` (a question that asks for a list), also the list right after ``u``'s paragraph
    in its section, which ``u`` then introduces ("… display ellipsis if it is too large. You can
    adjust this with vertical_overflow." and the list of its values)."""
    mine = passage_of(units, u)
    if u.kind == "item":
        group = u.block.group
    else:
        led = paragraph and u.kind == "prose"
        following = [v for v in mine if v.position > u.position and v.kind != "code"
                     and not (led and v.kind == "prose" and v.paragraph == u.paragraph)][:1]
        if not following or following[0].kind != "item" or following[0].block.section != u.block.section:
            return None
        if u.kind == "prose" and not u.text.rstrip().endswith(":") and not led:
            return None
        if led and following[0].paragraph != u.paragraph + 1:
            return None  # the list must follow the paragraph at once
        group = following[0].block.group
    items = [v for v in mine if v.kind == "item" and v.block.group == group]
    before = [v for v in mine if v.position < items[0].position and v.kind != "code"][-1:]
    intro = before[0] if before and before[0].kind == "prose" and before[0].text.rstrip().endswith(":") else None
    if intro is None and u.kind == "prose" and paragraph:  # u and the rest of its paragraph
        rest = [v.text for v in mine if v.kind == "prose" and v.paragraph == u.paragraph and v.position >= u.position]
        intro = replace(u, text=" ".join(rest))
    return intro, items


def _nested_items(u: Unit, units: Sequence[Unit]) -> list[Unit]:
    """The items nested under list item ``u`` (indented more than it, up to the next item that is
    not), in its passage."""
    after = sorted((v for v in passage_of(units, u) if v.position > u.position), key=lambda v: v.position)
    nested = []
    for v in after:
        if v.kind != "item" or v.block.group != u.block.group or v.block.indent <= u.block.indent:
            break
        nested.append(v)
    return nested


#: a sentence that speaks of the list before it as a whole ("You can install all of these with …")
_BACK_TO_LIST = re.compile(r"\b(?:these|those|them|the\s+above|this\s+list)\b", re.IGNORECASE)


def _closing(items: list[Unit], units: Sequence[Unit]) -> Unit | None:
    """The sentence right after a list, in its section, that speaks of the list's items as a
    whole ("You can install all of these with `pip install …[full]`."): it completes the list."""
    last = items[-1]
    after = sorted((v for v in passage_of(units, last) if v.position > last.position), key=lambda v: v.position)[:1]
    if (after and after[0].kind == "prose" and after[0].block.section == last.block.section
            and _BACK_TO_LIST.search(after[0].text)):
        return after[0]
    return None


def _item_lines(items: list[Unit], units: Sequence[Unit] = ()) -> list[str]:
    """The items as list lines; an item that introduces a short code block keeps it ("- Format
    volumes … by customising the StorageClass:" and its two lines of YAML): never cut at the colon."""
    ordered = items[0].block.ordered
    lines = []
    for i, v in enumerate(items, 1):
        line = f"{i}. {v.text}" if ordered else f"- {v.text}"
        if code := item_code(v, units):
            line += "\n" + textwrap.indent(_render_code(replace(code, text=textwrap.dedent(code.text))), "  ")
        lines.append(line)
    return lines


def item_code(item: Unit, units: Sequence[Unit]) -> Unit | None:
    """The code block a list item introduces, when it is short enough to quote in a list."""
    if not item.leads_code:
        return None
    code = next((v for v in passage_of(units, item) if v.position == last_position(item) + 1), None)
    return code if code is not None and code.kind == "code" and len(code.text.splitlines()) <= _ITEM_CODE_LINES else None


def _render_list(intro: Unit | None, items: list[Unit], units: Sequence[Unit] = ()) -> str:
    lines = _item_lines(items, units)
    number = items[0].number
    closing = _closing(items, units)
    tail = f"\n{closing.text} [{number}]" if closing else ""
    # an item that leads its nested items is prefixed with its section, as a single item is (``_sentence``)
    head = (_sentence(intro, False) if intro.kind == "item" else intro.text) if intro \
        else f"{items[0].block.section}:" if items[0].block.section else ""
    if not head:
        return "\n".join(lines) + f" [{number}]" + tail
    return f"{head} [{number}]\n" + "\n".join(lines) + tail


def _code_for(anchor: Unit, units: Sequence[Unit], code_units: Sequence[Unit]) -> Unit | None:
    """The code block of the anchor's section: the first after it, else the last before it; in a
    passage without code, the next code block of the same document and section (or a section
    under it) among ``code_units`` (those that share a word with the question; the splitter cuts a
    page at its headings, so an introduction and its example part ways), else the best of them."""
    if anchor.kind == "code":
        return anchor
    if not any(v.kind == "code" for v in passage_of(units, anchor)):
        # of the anchor's section or one under it: a later section's code is another task's
        section = anchor.block.section
        related = [v for v in code_units if v.source == anchor.source
                   and (not section or section in (v.block.section, *v.above))]
        following = sorted((v for v in related if v.start > anchor.start), key=lambda v: (v.start, v.position))
        return following[0] if following else related[0] if related else None
    same = [v for v in passage_of(units, anchor) if v.kind == "code" and v.block.section == anchor.block.section]
    after = [v for v in same if v.position > anchor.position]
    before = [v for v in same if v.position < anchor.position]
    if after or before:
        return after[0] if after else before[-1]
    # a section without code (an introduction): the first code block that follows it
    return next((v for v in passage_of(units, anchor) if v.kind == "code" and v.position > anchor.position), None)


def _render_code(code: Unit) -> str:
    lines = code.text.splitlines()
    commands = [ln for ln in lines if ln.lstrip().startswith("$ ")]
    body = "\n".join(ln.strip() for ln in commands) if commands else code.text
    return f"```{code.block.lang}\n{body}\n```"


def _sentence(u: Unit, bare: bool, label: str = "") -> str:
    """A list item, or a sentence that matched only through its heading (a poem's date line), is
    prefixed with its section heading: alone it would not say what it is about; a value is
    prefixed with the heading the question names ("dev_addr: default: '127.0.0.1:8000'"), and a
    line of a console block is quoted as code. A code-like duration gets its plain reading."""
    text = f"`{u.text}`" if u.kind == "line" else u.text
    if label and u.kind != "heading":
        return gloss(f"{_labelled(label)} {text}")
    if (u.kind == "item" or bare) and u.block.section and u.kind != "heading":
        return gloss(f"{_labelled(u.block.section)} {text}")
    return gloss(text)


def _labelled(heading: str) -> str:
    """A heading as the label before a sentence: with one colon ("Diagnose:" is not "Diagnose::")."""
    return f"{heading.rstrip().rstrip(':：').rstrip()}:"


#: a sentence whose subject is a pronoun pointing back ("This is …", "It lets …"); "This pattern is
#: called …" names what it points at, and stands alone
BACK_REFERENCE = re.compile(r"^(?:This|That|These|Those|It)\s+(?:is|was|are|were|means|makes|lets|allows|gives|"
                             r"has|have|can|will|would|should|does|did)\b")


#: a sentence that opens by pointing back at a thing by its noun ("This header could …", "These
#: files are …"): the sentence before that says the noun says which
_DEMONSTRATIVE = re.compile(r"^(?:This|That|These|Those)\s+([a-z][a-z-]+)\b")
_NAMED_BACK = 2  # how many sentences back that sentence may be


#: a person named by a pronoun ("Inspired by his daughter's toys, he came up with the idea")
_PERSONAL_PRONOUN = re.compile(r"\b(?:he|she|they|him|her|them)\b", re.IGNORECASE)
_OPENS_WITH_PRONOUN = re.compile(r"^\W*(?:he|she|they|his|her|their)\b", re.IGNORECASE)
#: a sentence whose subject is a person's name ("Margaret Mitchell is a researcher …", "Ada J. Quill
#: joined …"): two or three capitalised words, an initial allowed, before a verb
_NAMED_SUBJECT = re.compile(r"(?:[A-Z][a-z'-]+[ \t]+(?:[A-Z]\.[ \t]+)?){1,2}[A-Z][a-z'-]+[ \t]+"
                            r"(?:is|was|has|had|holds|held|leads|led|works|worked|joined|received|serves|served)\b")


def _antecedent(u: Unit, units: Sequence[Unit], quoted: set[int], person: bool = False) -> str:
    """The sentence before ``u`` in its paragraph, with a space, when ``u`` opens by pointing back
    at it ("This is the recommended method …" after "… set the file to a StringIO."): alone it
    would not say what "this" is; for a question that asks for a person (``person``), when ``u``
    names one by a pronoun and the sentence before names someone ("… architect Matt Butcher was
    looking for …" before "…, he came up with the idea"); the heading over ``u``, as a label, when
    ``u`` is the first sentence under it ("`Icebox` Column: This is the intake column …"); "" otherwise
    (or when that sentence is quoted already)."""
    if u.kind == "prose" and not BACK_REFERENCE.match(u.text) and (named := _DEMONSTRATIVE.match(u.text)):
        return _named_before(u, units, quoted, stem(named.group(1)))
    if u.kind != "prose" or not (BACK_REFERENCE.match(u.text) or person and _PERSONAL_PRONOUN.search(u.text)):
        return ""
    if not BACK_REFERENCE.match(u.text):  # a person's pronoun: the nearest sentence before that names them
        return _named_person_before(u, units, quoted)
    before = [v for v in passage_of(units, u) if v.position == u.position - 1 and id(v) not in quoted
              and (v.kind == "prose" and v.paragraph == u.paragraph
                   # the first sentence under a heading points back at the heading: "This is the
                   # intake column for new issues …" under "`Icebox` Column"
                   or v.kind == "heading" and v.text == u.block.section)]
    if not before:
        return ""
    return f"{_labelled(before[0].text)} " if before[0].kind == "heading" else f"{before[0].text} "


def _named_person_before(u: Unit, units: Sequence[Unit], quoted: set[int]) -> str:
    """The nearest sentence before ``u`` (``_nearest_before``) that names a person and does not
    itself open with a pronoun for one ("Margaret Mitchell is a researcher …" two sentences before
    "She previously worked at Google AI …, where she founded …")."""
    return _nearest_before(u, units, quoted, lambda v: not _OPENS_WITH_PRONOUN.match(v.text) and bool(
        _NAMED_SUBJECT.match(v.text) or has_answer_type("person", v.text, frozenset())))


def _named_before(u: Unit, units: Sequence[Unit], quoted: set[int], noun: str) -> str:
    """The nearest sentence before ``u`` (``_nearest_before``) that says ``noun`` (a stem), when
    ``u`` opens with "This <noun>" ("HTTP_REFERER is a HTTP header …" for "This header could leak
    a URL …")."""
    return _nearest_before(u, units, quoted, lambda v: noun in v.own)


def _nearest_before(u: Unit, units: Sequence[Unit], quoted: set[int], wanted: Callable[[Unit], bool]) -> str:
    """The nearest of the ``_NAMED_BACK`` sentences before ``u`` in its paragraph that is
    ``wanted``, with a space; "" when none is or it is quoted already."""
    earlier = sorted((v for v in passage_of(units, u) if v.kind == "prose" and v.paragraph == u.paragraph
                      and 0 < u.position - v.position <= _NAMED_BACK), key=lambda v: -v.position)
    found = next((v for v in earlier if wanted(v)), None)
    return f"{found.text} " if found is not None and id(found) not in quoted else ""


def _termed(chosen: Sequence[Unit]) -> dict[int, str]:
    """The term line quoted before the first chosen sentence of each definition (``Unit.term``:
    "`--cached`: Contrary to `--local`, this will include …"), by the sentence's id: alone it does
    not say what it defines."""
    termed: dict[int, str] = {}
    seen: set[tuple[int, int]] = set()
    for u in chosen:
        if u.term and (u.rank, u.paragraph) not in seen and u.term not in u.text:
            termed[id(u)] = f"{u.term} "
        seen.add((u.rank, u.paragraph))
    return termed


def _context(u: Unit, units: Sequence[Unit], quoted: set[int], why: bool, person: bool = False) -> str:
    """What is quoted before ``u``: for a why question whose reason is not after it, the fact
    before a piece of advice (``reasons.grounds``); else the sentence a pronoun points back at."""
    if why and not consequent(u, units, quoted) and (before := grounds(u, units, quoted)):
        return before
    return _antecedent(u, units, quoted, person)


def _completion(u: Unit, units: Sequence[Unit]) -> str:
    """The lines that complete a sentence ending with a colon ("for the following project:" and
    "KEN SARGENT HOUSE", "GRANDE PRAIRIE, ALBERTA"): the short prose, heading or row units right
    after it in its passage (value lines, or one sentence), joined with "; ", or the next paragraph
    whole when it goes on in lower case (the sentence's end, set apart as a quotation); "" for any
    other sentence (a list or a code block after the colon is quoted whole elsewhere)."""
    if not u.text.rstrip().endswith(":") or u.leads_code or u.leads_list or u.kind == "code":
        return ""
    last = last_position(u)  # after the last sentence of a joined run
    after = sorted((v for v in passage_of(units, u) if v.position > last), key=lambda v: v.position)
    lines: list[str] = []
    if after and after[0].kind == "prose" and after[0].text[:1].islower() and after[0].block is not u.block:
        return after[0].text  # the rest of the sentence in a paragraph (or a quotation) of its own: "where
        # the traffic is:" and "> in aggregate, for more than 1 minute, over 1 Gbps …", however long
    for v in after[:_COMPLETING_LINES]:
        if v.kind not in ("prose", "heading", "row") or len(v.text.split()) > _COMPLETING_WORDS:
            break
        sentence = v.text.rstrip()[-1:] in ".!?"
        if sentence and lines:
            break  # value lines, then a sentence of its own: the value ended
        lines.append(v.text)
        if sentence:
            break
    return "; ".join(lines)


def _sentences(candidates: Sequence[Candidate], max_sentences: int, *, first: Unit | None = None,
               share: float = _SENTENCE_SHARE, several: bool = False) -> list[Unit]:
    """The sentences to quote, best first; ``several``: the question asks for several things
    ("Which two backends …?"), which parallel documents may each name one of."""
    best, best_own = candidates[0].score, candidates[0].own_share
    chosen: list[Unit] = [first] if first else []
    for c in candidates:
        if len(chosen) >= max_sentences or c.score < share * best:
            break
        if chosen and c.own_share < _SENTENCE_SHARE * best_own and not (
                several and all(u.source != c.unit.source for u in chosen)):
            continue  # a further sentence must match on its own words, not only its neighbours' (unless it is
            # another document's, for a question that asks for several things: "… on the native aarch64 backend"
            # under "Sign extension error in the AArch64 NCG", beside the PPC64le advisory's sentence)
        if c.unit.kind == "code" or any(_squeezed(c.unit.text) in _squeezed(u.text) for u in chosen):
            continue  # said already, perhaps spaced otherwise (a PDF's copy: "an inci dent", "Let ’s")
        within = [i for i, u in enumerate(chosen) if u.text.lower() in c.unit.text.lower() or _overlap(u, c.unit)]
        if within:  # it quotes a chosen sentence and the next one of its paragraph (a yes/no's answer)
            chosen[within[0]] = _joined(chosen[within[0]], c.unit)
        else:
            chosen.append(c.unit)
    return chosen


def _squeezed(text: str) -> str:
    """``text`` in lower case without its white space: two copies of a sentence compare equal
    however a PDF's text layer spaced their words."""
    return "".join(text.lower().split())


def _sentences_of(u: Unit) -> dict[int, str]:
    return {u.position + i: text for i, text in enumerate(u.run or (u.text,))}


def _overlap(a: Unit, b: Unit) -> bool:
    """Whether two units quote a sentence in common (neighbouring sentences joined, ``run``)."""
    return (a.rank, a.paragraph) == (b.rank, b.paragraph) and bool(_sentences_of(a).keys() & _sentences_of(b).keys())


def _joined(a: Unit, b: Unit) -> Unit:
    """``b`` when ``a`` is not in the same paragraph; else the run of sentences both cover, once."""
    if (a.rank, a.paragraph) != (b.rank, b.paragraph) or a.kind != "prose" or b.kind != "prose":
        return b
    run = {**_sentences_of(a), **_sentences_of(b)}
    if sorted(run) != list(range(min(run), max(run) + 1)):
        return b
    ordered = tuple(run[k] for k in sorted(run))
    last = a if last_position(a) >= last_position(b) else b
    return replace(a if a.position <= b.position else b, text=" ".join(ordered), run=ordered,
                   position=min(run), own=a.own | b.own, near=a.near | b.near, leads_code=last.leads_code)


#: a series written out in a sentence: three items or more, the last after "and" or "or" (its
#: last two comma-separated items are enough to find one: a longer repeat makes the search
#: quadratic on a long run of commas)
_ITEM = r"[`'\"*]*(?<![\w.-])[\w.-]+[`'\"*]*"  # a word of a series, quoted or as code or not ("`second`")
_SERIES = re.compile(rf"(?:{_ITEM},\s+){{2}}(?:{_ITEM}\s+)?(?:and|or)\s+[`'\"*]*\w")
#: the items named after a colon that ends the sentence: "… two new callback props: `onCommit` and `onPostCommit`."
_NAMED_AFTER_COLON = re.compile(rf":\s+{_ITEM}(?:,\s+{_ITEM})?,?\s+(?:and|or)\s+{_ITEM}\s*\.?$")


def _table_after(u: Unit, units: Sequence[Unit]) -> list[Unit]:
    """The rows of the table right after a sentence ending with a colon ("Support for version 1
    implies the following:"), which a list question asks for as it would the list after it; none
    for any other unit."""
    if u.kind != "prose" or not u.text.rstrip().endswith(":") or u.leads_list or u.leads_code:
        return []
    rows: list[Unit] = []
    for v in sorted((v for v in passage_of(units, u) if v.position > last_position(u)), key=lambda v: v.position):
        if v.kind != "row" or len(rows) == _TABLE_ROWS:
            break
        rows.append(v)
    return rows


def _best_list(candidates: Sequence[Candidate], units: Sequence[Unit], ordered: bool,
               compared: bool = False) -> str | None:
    """The list that answers a list question: one the good candidates belong to or introduce,
    or one in the best candidate's passage (a recipe's steps need not repeat the question's
    words), a numbered one first for a question about steps; ``compared``: the question asks
    one thing's value and the other's (a sentence that gives both answers it)."""
    options = []
    best = candidates[0]
    if best.unit.kind == "prose" and best.unit.text.rstrip().endswith(":") \
            and max(v.position for v in passage_of(units, best.unit)) == best.unit.position:
        return None  # "There are two major requirements …:" ends its passage: its own list is in the next
        # one, which the provider reads on for (``ragkit.rag.read_on``), not another list of these passages
    listed = [(c.score, c.unit) for c in candidates if c.score >= _LIST_SHARE * best.score]
    listed += [(_LIST_SHARE * best.score, v) for v in passage_of(units, best.unit) if v.kind == "item"]
    for score, unit in listed:
        nested = _nested_items(unit, units) if unit.kind == "item" and unit.text.rstrip().endswith(":") else []
        # an item that introduces the items nested under it answers with them, not with its own list's
        found = (unit, nested) if nested else _list_of(unit, units, paragraph=True)
        if found:
            bonus = _ORDERED_BONUS if ordered and found[1][0].block.ordered else 1.0
            options.append((score * bonus, -len(options), found))
    if not options:
        return None
    score, _, (intro, items) = max(options, key=lambda o: (o[0], o[1]))
    if any(c.score > score and c.unit.kind == "prose" and _SERIES.search(c.unit.text) for c in candidates):
        return None  # a sentence that names the items itself scores better than any list
    if best.unit.kind == "prose" and (_SERIES.search(best.unit.text) or _NAMED_AFTER_COLON.search(best.unit.text)
                                      or compared and best.typed and len(NUMBER.findall(best.unit.text)) > 1) \
            and items[0].rank != best.unit.rank:
        return None  # the best sentence names the items itself ("… variables a, b, c and d"), or gives the values
        # a comparison asks for ("6 mm … for pot soil, 3 mm for …"): another page's list is no answer
    return _render_list(intro, items, units)


def column_labels(row: str) -> list[str]:
    """The column labels of a row read as "Price: £6.50; Ticket: Adult" (``parse_blocks``)."""
    return [cell.split(": ", 1)[0] for cell in row.split("; ") if ": " in cell]


def columns_answer(units: Sequence[Unit]) -> str | None:
    """The columns of the best-ranked table among the passages: the labels of its rows' cells, in
    the order they first appear (a row leaves its empty cells out, so the rows of its source are
    read together), cited by its first row; None when no passage has a labelled row."""
    rows = sorted((u for u in units if u.kind == "row" and column_labels(u.text)), key=lambda u: (u.rank, u.position))
    if not rows:
        return None
    first = rows[0]
    labels: list[str] = []
    for u in rows:
        if u.source == first.source and u.block.section == first.block.section:
            labels += [label for label in column_labels(u.text) if label not in labels]
    where = f" of {first.block.section}" if first.block.section else ""
    return f"The columns{where}: {', '.join(labels)} [{first.number}]"


def compose(candidates: Sequence[Candidate], units: Sequence[Unit], *, howto: bool, list_wanted: bool,
            ordered: bool, max_sentences: int, code_units: Sequence[Unit] = (), why: bool = False,
            person: bool = False, compared: bool = False) -> str:
    """The answer text (see the module docstring); ``candidates`` best first; ``code_units``: the
    code blocks that share a word with a how-to question, best first; ``why``: the question asks
    for a reason (a sentence without one brings the next when that gives it); ``person``: for a
    person (a sentence naming one by a pronoun brings the sentence before that names them);
    ``compared``: it asks one thing's value and the other's (a sentence giving both answers it)."""
    best = candidates[0].unit
    if list_wanted and (rows := _table_after(best, units)):  # "… implies the following:" and its table
        return f"{best.text} [{best.number}]\n" + "\n".join(f"- {r.text}" for r in rows)
    if list_wanted and (listed := _best_list(candidates, units, ordered, compared)):
        return listed
    if best.kind in ("prose", "heading") and best.text.rstrip().endswith(":") and (found := _list_of(best, units)):
        return _render_list(*found, units)
    if best.kind == "item" and best.text.rstrip().endswith(":") and (nested := _nested_items(best, units)):
        return _render_list(best, nested, units)  # "Removed expired parameter names:" and the names under it
    code = _code_for(best, units, code_units) if howto else None
    if code is None:  # "The default is:" and the value's code block after it: never cut at the colon
        code = next((v for v in passage_of(units, best) if best.leads_code and v.position == last_position(best) + 1),
                    None)
    lead = None
    if best.kind == "code":  # the sentence that introduces the code, else the code's section
        mine = [v for v in passage_of(units, best) if v.position < best.position and v.kind != "code"][-1:]
        lead = mine[0] if mine and mine[0].block.section == best.block.section and mine[0].kind != "heading" else None
    share = _TYPED_SHARE if candidates[0].typed else _SENTENCE_SHARE
    if howto:  # the steps of one page: sentences from other pages would only distract
        candidates = [c for c in candidates if c.unit.source == best.source]
    if howto and best.leads_code:  # "- Add a remote:" and its command: the one description says it
        max_sentences = 1
    chosen = _sentences(candidates, max_sentences, first=lead, share=share, several=list_wanted and not howto)
    if code is None and (colon := next((i for i, u in enumerate(chosen) if u.leads_code), None)) is not None:
        # a quoted sentence that introduces a code block ("And on Windows:"): the block follows it, never cut
        chosen = chosen[: colon + 1]
        code = next((v for v in passage_of(units, chosen[-1]) if v.position == last_position(chosen[-1]) + 1), None)
    listed: list[Unit] = []
    if code is None and (colon := next((i for i, u in enumerate(chosen) if u.leads_list and u.source == best.source),
                                       None)) is not None:
        # a quoted sentence of the best one's document that introduces a list ("What is in a new hire gift:"):
        # the list follows it, never cut
        chosen = chosen[: colon + 1]
        listed = (_nested_items(chosen[-1], units) if chosen[-1].kind == "item"
                  else (_list_of(chosen[-1], units) or (None, []))[1])
    bare = {id(c.unit) for c in candidates if c.own_share == 0}
    labels = {id(c.unit): c.label for c in candidates if c.label}
    quoted = {id(u) for u in chosen}
    termed = _termed(chosen)
    said = [
        (u, f"{termed.get(id(u), '')}{_context(u, units, quoted, why, person)}"
            f"{_sentence(u, id(u) in bare, labels.get(id(u), ''))}"
            f"{consequent(u, units, quoted) if why else sequel(u, units, quoted)}"
            f"{' ' + rest if (rest := _completion(u, units)) else ''}") for u in chosen]
    text = " ".join(f"{line} [{u.number}]" for n, (u, line) in enumerate(said) if not _heading_said(n, said))
    if listed:
        return f"{text}\n" + "\n".join(_item_lines(listed, units))
    if code is not None:
        if not chosen:
            text = f"{code.block.section or 'Example'}: [{code.number}]"
        cited = code.number in {u.number for u in chosen} or not chosen
        more = ""
        if (found := _next_step(code, units)) is not None:
            step, then = found  # "And add the following content:" and its block, after ``crontab -e``
            more = f"\n\n{step.text} [{step.number}]\n\n{_render_code(then)}"
        return f"{text}\n\n{_render_code(code)}" + ("" if cited else f" [{code.number}]") + more
    return text


def _heading_said(n: int, said: Sequence[tuple[Unit, str]]) -> bool:
    """Whether the ``n``-th quote is a heading that another quote of its passage says already as
    its sentence's context ("ropeLocker: Lets the winch run …" beside the heading "ropeLocker")."""
    u, line = said[n]
    return u.kind == "heading" and any(o.number == u.number and other.startswith(f"{line}: ")
                                       for k, (o, other) in enumerate(said) if k != n)


#: a line that goes on with the step its code block began: "And add the following content:"
_GOES_ON = re.compile(r"^(?:and|then|next|now|after\s+that|finally)\b[^.!?]{0,120}:$", re.IGNORECASE)


def _next_step(code: Unit, units: Sequence[Unit]) -> tuple[Unit, Unit] | None:
    """The line right after ``code`` that goes on with its step ("And add the following content:",
    after ``crontab -e``) and the code block it introduces, in the same section: one step, whose
    first command alone does not do it."""
    after = [v for v in passage_of(units, code) if v.position > code.position and v.kind != "line"]
    if len(after) < 2:
        return None
    step, then = after[0], after[1]
    if (step.kind not in ("prose", "item") or not _GOES_ON.match(step.text.strip()) or then.kind != "code"
            or step.block.section != code.block.section or then.block.section != code.block.section):
        return None
    return step, then
