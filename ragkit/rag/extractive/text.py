"""Words and blocks for the extractive answerer.

- ``stem``/``terms``: content-word stems (stopwords removed, light suffix stripping; identifiers
  such as ``ProbeClient`` or ``add_process_time`` also give their parts; "one" to "twelve" are
  read as their digits);
- ``parse_blocks``: a passage as typed blocks, with markup removed: prose sentences, list items
  (bulleted or numbered, grouped per list; a bullet alone on its line, as a PDF's text layer
  gives it, marks the line after it), table rows (cells labelled by the header row:
  "Ticket: Adult; Price: £6.50"), headings (markdown ``#`` lines and plain-text title lines), and
  fenced code blocks kept verbatim (a chunk that starts or ends inside a fence is handled) and
  Markdown's indented ones without their indent (four spaces or a tab after a blank line, when
  the lines read as code, not as an admonition's or an item's indented prose); a line
  that is one inline code span (a command reference's "`tar czf {{target.tar.gz}} {{file}}`") is
  a code block too. HTML
  tags such as ``<Listing …>``, documentation-site directives (``{* include *}``, ``/// tip``,
  ``!!! note``), quote markers (``> >``), emphasis, links and bracketed reference numbers are
  stripped from prose, so none of them reach an answer;
- ``split_sentences``: the prose, item and row sentences of a passage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from ragkit.markdown_tables import is_separator, table_cells
from ragkit.month_names import ABBREVIATIONS, MONTH_NAMES

STOPWORDS = frozenset(
    """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing done down during each else few for from further get gets
got had has have having he her here hers him his how i if in into is it its itself just know let like
make makes making me more most much must my need no nor not now of off on once only or other our ours out over own
please rather same say says long take takes many often she should show so some such tell than that the their theirs them then there these
they this those through to too under until up us use used using very want was way we were what when
where which while who whom whose why will with would you your yours explain describe give find list s t
""".split()
)
WORD = re.compile(r"[A-Za-z0-9]+(?:['’][A-Za-z]+)?")
#: the verbs a question's other words lean on ("does" of "Which port does X use?"; "may" in lower case only: "May" is a month)
AUXILIARY = r"(?:do|does|did|is|are|was|were|should|can|could|will|would|(?-i:may|might|shall)|must|has|have|had)"
#: how a question asking which one opens: "Which …", "What …", "In which …", "Since what …"
WHICH_OPENING = r"^\W*(?:(?:since|in|from|for|on|at|to|with|by)\s+)?(?:what|which)"
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SENT_SPLIT = re.compile(r"(?<=[.!?])[\"')\]*_]*\s+(?=[A-Z0-9\"'(\[`*_])")
_SUFFIXES = (
    ("ationary", ""),  # the adjective of a noun in -ation: "probationary period" for "on probation"
    ("ational", "ate"),
    ("ations", ""),
    ("ation", ""),
    ("ies", "y"),
    ("sses", "ss"),
    ("ing", ""),
    ("edly", ""),
    ("ed", ""),
    ("ly", ""),
    ("es", ""),
    ("s", ""),
)


#: British spellings folded to the American ones before stemming, so that a question's
#: "organisations", "licence" or "colour" meets a document's "organizations", "license", "color"
#: (and the other way round): both sides pass through ``stem``, so a fold only needs to be
#: consistent, and it joins no two words a reader would tell apart
_SPELLINGS = tuple((re.compile(pattern), repl) for pattern, repl in (
    (r"(?<=[a-z]{3})is(?=(?:ation|ations|e|ed|es|ing|er|ers)$)", "iz"),  # organise, organisation
    (r"(?<=[a-z]{2})ys(?=(?:e|ed|es|ing|er|ers)$)", "yz"),  # analyse, paralysed
    (r"(?<=[a-z]{3})our(?=(?:s|ed|ing|ite|ites|able|ful|al|hood|less)?$)", "or"),  # colour, behaviour
    (r"^(licen|defen|offen|preten)ce(?=[sd]?$)", r"\1se"),  # licence, defence
    (r"^(cent|met|lit|theat|fib|calib|spect|lust)re(?=[sd]?$)", r"\1er"),  # centre, metre
    (r"^(catalog|dialog|analog|prolog|epilog)ue(?=[sd]?$)", r"\1"),  # catalogue
    (r"^programme(?=[sd]?$)", "program"),
    (r"^(judg|acknowledg)ement(?=s?$)", r"\1ment"),
    (r"^grey(?=s?$)", "gray"),
    (r"^(model|label|cancel|travel|signal|level|fuel|channel|tunnel|marshal|counsel|total)l"
     r"(?=(?:ed|ing|er|ers)$)", r"\1"),  # modelling, cancelled
))


def american(word: str) -> str:
    """``word`` (lower case) in American spelling where it is a British one."""
    for pattern, repl in _SPELLINGS:
        word = pattern.sub(repl, word, count=1)
    return word


_VERB_ENDINGS = frozenset({"ing", "ed", "edly"})
#: a consonant doubled before a verb's ending ("runn-ing", "stopp-ed"), not l, s, f or z ("call",
#: "pass", "staff", "buzz") and not after one letter ("add", "egg")
_DOUBLED = re.compile(r"(?<=[a-z][a-z])([bcdghjkmnpqrtvwxy])\1$")


def stem(word: str) -> str:
    """A light, deterministic suffix stripper (install/installed/installing -> install;
    running/stopped -> run/stop; a gerund's plural as the gerund: settings/setting), after
    British spellings are read as American ones (``american``). Words of ordinary length are
    remembered (the memory is bounded: at most 65,536 words of at most 64 characters)."""
    return _stem(word) if len(word) <= 64 else _stem.__wrapped__(word)


@lru_cache(maxsize=1 << 16)
def _stem(word: str) -> str:
    w = american(word.lower().replace("’", "'").split("'")[0])
    w = _BOUNDS.get(w, w)
    w = ABBREVIATIONS.get(w, w)
    ate = bool(_ATE.search(w))
    if w.endswith("ings") and len(w) >= 7:
        w = w[:-1]  # "settings", "listings": the plural of a gerund, read as the gerund
    for suffix, repl in _SUFFIXES:
        if (
            w.endswith(suffix)
            and len(w) - len(suffix) >= 3
            and not w.endswith("ss" if suffix == "s" else "\0")
        ):
            w = w[: -len(suffix)] + repl
            if suffix in _VERB_ENDINGS and _DOUBLED.search(w):
                w = w[:-1]  # "running", "stopped" as "run", "stop" (not "added", "staffed", "called")
            break
    w = w[:-1] if w.endswith("e") and len(w) >= 4 else w
    # a verb in -ate as its noun in -ation is stemmed ("rotate", "rotating" as "rotation": "rot")
    return w[:-2] if ate and w.endswith("at") and len(w) >= 5 else w


def doer_verbs(term: str) -> frozenset[str]:
    """The stems of the verb an agent noun's stem ``term`` names the doer of ("creator": "created"
    and "creates" say it; "teacher": "teaches"); none for a short word ("user", "order")."""
    if len(term) < 6 or not term.endswith(("er", "or")):
        return frozenset()
    verb = term[:-2]
    return frozenset({stem(verb), stem(verb + "e")})


#: a bound's abbreviation read as its word: "the max size" asks for "a maximum of 64 KiB" ("highest"
#: is not read as "maximum": "the highest priority" says nothing of a maximum number)
_BOUNDS = {"max": "maximum", "min": "minimum"}

#: the months' terms (a month's abbreviation is read as its name: "January 1855" asks for the row
#: whose "Month: Jan")
MONTHS = frozenset(MONTH_NAMES)

#: a verb's forms in -ate ("rotate", "rotated", "rotates", "rotating") and its adverb ("separately"),
#: whose -at a noun in -ation ("rotation") loses with its suffix; not a verb in -eat or -oat ("treated",
#: "floating"), whose forms look the same, but "create"
_ATE = re.compile(r"(?:[^eo]|cre)at(?:e|ed|es|ing|ely)$")


#: small number words read as their digits: "one at a time" matches "to 1", "three" matches "3"
NUMBER_WORDS = {w: str(n) for n, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


#: irregular verb forms read as their verb ("fell" matches "fall", "written" matches "write"): a
#: suffix stripper cannot see them; forms that are also common other words (left, found, saw,
#: lay, born, bit, shot) are left out
IRREGULAR = {form: verb for verb, forms in (
    ("arise", "arose arisen"), ("awake", "awoke awoken"), ("become", "became"), ("begin", "began begun"),
    ("bend", "bent"), ("bite", "bitten"), ("blow", "blew blown"), ("break", "broke broken"),
    ("bring", "brought"), ("build", "built"), ("buy", "bought"), ("catch", "caught"), ("choose", "chose chosen"),
    ("come", "came"), ("deal", "dealt"), ("dig", "dug"), ("draw", "drew drawn"), ("drink", "drank drunk"),
    ("drive", "drove driven"), ("eat", "ate eaten"), ("fall", "fell fallen"), ("feed", "fed"),
    ("fight", "fought"), ("flee", "fled"), ("fly", "flew flown"), ("forbid", "forbade forbidden"),
    ("forget", "forgot forgotten"), ("forgive", "forgave forgiven"), ("freeze", "froze frozen"),
    ("get", "got gotten"), ("give", "gave given"), ("go", "went gone"), ("grow", "grew grown"),
    ("hang", "hung"), ("hide", "hid hidden"), ("hold", "held"), ("keep", "kept"), ("know", "knew known"),
    ("lead", "led"), ("lend", "lent"), ("lose", "lost"), ("make", "made"), ("mean", "meant"), ("meet", "met"),
    ("pay", "paid"), ("ride", "rode ridden"), ("ring", "rang rung"), ("rise", "rose risen"), ("run", "ran"),
    ("say", "said"), ("see", "seen"), ("seek", "sought"), ("sell", "sold"), ("send", "sent"),
    ("shake", "shook shaken"), ("shine", "shone"), ("shrink", "shrank shrunk"),
    ("sing", "sang sung"), ("sink", "sank sunk"), ("sit", "sat"), ("sleep", "slept"), ("speak", "spoke spoken"),
    ("spend", "spent"), ("spin", "spun"), ("stand", "stood"), ("steal", "stole stolen"), ("stick", "stuck"),
    ("strike", "struck stricken"), ("swear", "swore sworn"), ("sweep", "swept"), ("swim", "swam swum"),
    ("take", "took taken"), ("teach", "taught"), ("tear", "tore torn"), ("tell", "told"), ("think", "thought"),
    ("throw", "threw thrown"), ("understand", "understood"), ("wake", "woke woken"), ("wear", "wore worn"),
    ("win", "won"), ("write", "wrote written"),
) for form in forms.split()}


_NEGATED = {"won't": "will", "can't": "can", "shan't": "shall"}


def word_terms(raw: str) -> list[str]:
    """The stems of one word: the word (a small number word as its digits), and the parts of a
    CamelCase identifier."""
    low = raw.lower().replace("’", "'")
    if low.endswith("n't"):  # a negated auxiliary is the auxiliary ("don't" is "do", not a word "don")
        low = _NEGATED.get(low, low[:-3])
    low = low.split("'")[0]
    if low in STOPWORDS or (len(low) < 2 and not low.isdigit()):
        return []
    if low in NUMBER_WORDS:
        return [NUMBER_WORDS[low]]
    out = [stem(IRREGULAR.get(low, low))]
    parts = _CAMEL.findall(raw)
    if len(parts) > 1:
        out += [stem(p.lower()) for p in parts if len(p) > 1 and p.lower() not in STOPWORDS]
    return out


SNAKE = re.compile(r"(?<![\w])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w])")


def terms(text: str) -> list[str]:
    """Content-word stems of ``text`` in order (stopwords and 1-letter words removed), then each
    snake_case identifier whole: ``NO_COLOR`` is the word "color" (its "no" is a stopword) and
    the term ``no_color``, which only a passage naming it holds; then each language named by a
    letter and a sign (``C#``, ``C++``, ``F#``), which a 1-letter word would lose."""
    return [t for raw in WORD.findall(text) for t in word_terms(raw)] + snake_identifiers(text) + signed_names(text)


#: a language named by one letter and a sign: "C#", "C++", "F#" (not "a#b", "x++" in code)
_SIGNED_NAME = re.compile(r"(?<![\w#+.])[A-Z](?:#|\+\+)(?![\w#+])")


def signed_names(text: str) -> list[str]:
    """The languages ``text`` names by a letter and a sign, lower-cased (``C#`` -> ``c#``)."""
    return [m.lower() for m in _SIGNED_NAME.findall(text)]


def snake_identifiers(text: str) -> list[str]:
    """The snake_case identifiers of ``text``, lower-cased and whole (``NO_COLOR`` -> ``no_color``)."""
    return [m.lower() for m in SNAKE.findall(text)]


# ---------------------------------------------------------------- markup
_TAG_LINE = re.compile(r"^\s*</?[A-Za-z][\w-]*(?:\s+[\w:-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>\s*$")
_INLINE_TAG = re.compile(
    r"</?(?:a|abbr|b|br|code|del|div|em|i|img|ins|kbd|mark|p|q|s|small|span|strong|sub|sup|u|"
    r"[A-Z][\w-]*)(?:\s+[\w:-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>"
)
# documentation-site directives: includes ({* file *}, {% … %}, {{< … >}}, --8<--) and admonition
# markers (/// tip, !!! note "Title", ::: warning) are site machinery, not text
_DIRECTIVE = re.compile(r"^\s*(?:\{[*%{<].*[*%}>]\}|-+8<-+.*|(?:///|!!!|\?\?\?\+?|:::+)\s*[\w\"' |-]*)\s*$")
#: a Markdown link reference definition ("[`cargo add`]: ../commands/cargo-add.md"): never shown as text
_LINK_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]{1,200}\]:\s*<?\S+>?(?:\s+[\"'(].*)?\s*$")
_QUOTE = re.compile(r"^(?:>\s?)+")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_ALT_WORDS = 4  # an image's alt text of this many words or more describes it in words: kept as text
_LINK = re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]\s][^\]]*\]|\[\])")  # inline and reference links: [text](url), [text][ref], [text][]
#: a mail link's address ("[Mary Quell](mailto:mquell@example.org)"): whom to write to, which the
#: page shows on hover and a reader asking whom to contact needs; kept after the link's text
_MAILTO = re.compile(r"\(mailto:([^()?\s]+)")


def _link_text(match: re.Match[str]) -> str:
    """A link's text (of ``_LINK``), with a mail link's address after it when the text does not
    say it: "Mary Quell (mquell@example.org)"."""
    text = match.group(1)
    mail = _MAILTO.match(match.group(0), len(text) + 2)
    return f"{text} ({mail.group(1)})" if mail and mail.group(1).lower() not in text.lower() else text


_REFERENCE = re.compile(r"\[(?:\d+|\^[\w-]+)\]")  # "[3]", "[^note]": a document's own references
# a command reference's mnemonic letters: "[c]reate a g[z]ipped archive" (tldr pages)
_MNEMONIC = re.compile(r"\[([A-Za-z])\](?=[A-Za-z])|(?<=[A-Za-z])\[([A-Za-z])\]")
# emphasis follows no closing bracket and precedes no opening one: "(3**3)**3" is arithmetic
_EMPHASIS = re.compile(r"(?<![\w*)\]])(\*{1,3}|_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*(\[])")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+.!|<>~-])")  # Markdown's backslash escapes: "\*Note:" shows "*Note:"


def _quote_depth(line: str) -> int:
    """How many quote markers (``>``) open ``line``."""
    quoted = _QUOTE.match(line.strip())
    return quoted.group().count(">") if quoted else 0


_CODE_PIECES = re.compile(r"(`[^`]*`)")  # inline code, kept as a piece of its own by ``split``


def clean_line(line: str) -> str:
    """A prose line without markup: quote markers, HTML tags, images (an alt text of a few words
    stays: "A Prettier Printer by James Long", a video's cover), links, emphasis, a
    document's own bracketed reference numbers and a command reference's mnemonic brackets
    ("[c]reate" -> "create") removed, and a backslash escape shown as its character ("\\*" as
    "*"; inline code is kept)."""
    line = _QUOTE.sub("", line.strip())
    line = _IMAGE.sub(lambda m: m.group(1) if len(m.group(1).split()) >= _ALT_WORDS else "", line)
    line = _LINK.sub(_link_text, line)
    pieces = _CODE_PIECES.split(line)  # leave inline code alone
    for i in range(0, len(pieces), 2):
        text = _INLINE_TAG.sub("", pieces[i])
        text = _REFERENCE.sub("", text)
        text = _MNEMONIC.sub(lambda m: m.group(1) or m.group(2), text)
        pieces[i] = _ESCAPED.sub(r"\1", _EMPHASIS.sub(r"\2", text))
    return re.sub(r"\s{2,}", " ", "".join(pieces)).strip()


def _without_emphasis(text: str) -> str:
    """``text`` with its emphasis marks taken out, its inline code left alone: "`/_healthcheck_<app>`"
    and "`__init__`" keep their underscores."""
    pieces = _CODE_PIECES.split(text)
    return "".join(piece if i % 2 else _EMPHASIS.sub(r"\2", piece) for i, piece in enumerate(pieces))


# ---------------------------------------------------------------- blocks
@dataclass(frozen=True)
class Block:
    kind: str  # "prose", "item", "row", "heading" or "code"
    text: str
    section: str  # the heading in effect ("" when the passage shows none)
    group: int = -1  # items of one list share a group number
    ordered: bool = False  # a numbered list item
    lang: str = ""  # a code block's language tag
    label: bool = False  # a title-like line that is one of a run of labels (a figure's, in a PDF's
    # text), not a heading other text follows; it still starts a section, but heads no other subject
    indent: int = 0  # a list item's indentation: an item nested under another is indented more
    continues: bool = False  # a prose line that goes on the paragraph of the prose line before it
    # (no blank line between): a page written one sentence to a line keeps its paragraphs


_ABBREVIATION = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sr|Jr|St|Mt|Capt|Col|Gen|Lt|Maj|Adm|Cmdr|Rev|Fr|Sgt|"
    r"Sen|Sens|Rep|Reps|Gov|Pres|Hon|Atty|Supt|No|Nos|Fig|vs|approx|"
    r"ca|cf|e\.g|i\.e)|(?:^|[\s.])[A-Z])\.$"
)
#: a list item's mark and the space after it (``- ``, ``* ``, ``• ``, ``1. ``, ``2) ``)
_BULLETS = "•＊·▪◦‣●○■□►✓✔"
ITEM_MARK = rf"(?:([-*+{_BULLETS}])|(\d{{1,2}})[.)])\s+"
_ITEM = re.compile("^" + ITEM_MARK)
#: a list's bullet alone on its line, its item's text on the next (how a PDF's text layer often
#: gives a bullet: a glyph of its own, "●" then "elrond-go -")
_LONE_BULLET = re.compile(rf"^\s*[{_BULLETS}]\s*$")
_CONTENTS_ENTRY = re.compile(r"(?:[-*+]|\d{1,3}[.)])[ \t]+\[[^\[\]\n]{1,300}\]\(#[^()\s]{0,300}\)")


#: a number as a passage writes it ("3", "1,024", "94.45"), not one inside a word ("S3") or a version's tail
NUMBER = re.compile(r"(?<![\w.,])\d[\d,.]*")


def _headless(row: str, after: str) -> bool:
    """Whether a Markdown table row (``| a | b |``) is not its table's header: a header has the
    separator row (``| --- | --- |``) under it, and a passage cut from the middle of a long table
    starts with a row of data."""
    cells = table_cells(clean_line(after))
    return row.startswith("|") and not (cells and is_separator(cells))


def _row_sentence(header: list[str] | None, cells: list[str]) -> str:
    """A table row as a sentence, each cell labelled by its column ("Price: £6.50")."""
    if not header or len(header) != len(cells):
        return "; ".join(c for c in cells if c)
    return "; ".join(
        f"{h}: {c}" if h and h.lower() != c.lower() else c for h, c in zip(header, cells, strict=True) if c
    )


_UNDERLINE = re.compile(r"^\s*([-=~^\"'`*+#])\1{2,}\s*$")


def _is_underline(line: str, text: str) -> bool:
    """Whether ``line`` underlines ``text`` (reStructuredText's and Markdown's setext headings, in
    a file read as plain text): a run of one punctuation mark at least half as long as the text."""
    return bool(_UNDERLINE.match(line)) and len(line.strip()) >= len(text) / 2 and not _ITEM.match(text)


#: a line that holds a date and nothing else ("**2025-03-31**", "March 3, 2021", "12 May 2024"):
#: the heading of a dated entry (a revision history's, a change log's), as "v2.1.0" would be;
#: right under a heading it is that heading's date ("What's new in 4.2.0" and "May 15, 2025")
_DATE_LINE = re.compile(
    r"\d{4}-\d{2}-\d{2}"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4}"
    r"|\d{1,2}(?:st|nd|rd|th)?\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?,?\s+\d{4}"
)


def _is_title(line: str) -> bool:
    """A title or section line of plain text ("POWER AND SUPPLIES", "Annual Report 2022"): no
    closing punctuation, no comma, every longer word capitalised, and not a one-word label with
    its value ("Default: True"), nor a list item."""
    words = [w for w in WORD.findall(line) if len(w) > 3 and not w.isdigit()]
    return (
        bool(words)
        and not _ONE_WORD_LABEL.match(line)
        and len(line.split()) <= 12
        and line[-1] not in ".!?:;,"
        and "," not in line
        and all(w[0].isupper() for w in words)
        and not _ITEM.match(line)  # "- Fever", "• Rash": a list's item, however short
        and not (len(words) == 1 and words[0].lower().endswith("ed") and any(c.isdigit() for c in line))
        # "Released 2025-09-01", "Updated 12 March 2024": a participle and its date state a fact
    )


_LABEL_RUN = 6  # how far past a title-like line its subheadings are looked through
_LABEL_WORDS = 4  # a figure's or a table's label: a line of at most this many words, no closing punctuation


def _is_label(line: str) -> bool:
    """A short line without closing punctuation ("Job 1 Job 2", "master"): one label of a figure
    or a table whose text a PDF's text layer gives line by line."""
    text = clean_line(line)
    return (bool(WORD.search(text)) and len(text.split()) <= _LABEL_WORDS and text[-1] not in ".!?:;,"
            and not line.lstrip().startswith(("#", "`", "|", "-", "*", "+", ">")) and not _ITEM.match(text))


def _label_follows(lines: list[str], i: int) -> bool:
    """Whether a title-like line (line ``i - 1``) is one of a run of labels rather than a heading
    of other text:
    past the title-like lines under it (a heading's subheadings), the next line is a label too (a
    figure's "Tenant A", "Job 1 Job 2", "Quarry", "coordinator" in a paper's page). A heading is
    followed by its text ("POWER AND SUPPLIES", "Electricity", "The island is not on the grid.")."""
    following = [ln for ln in lines[i:i + _LABEL_RUN] if ln.strip()]
    for line in following:
        if not _is_title(clean_line(line)) or line.lstrip().startswith("#"):
            return _is_label(line)
    return False  # nothing but title-like lines in sight: headings, as before


_COMMAND_LINE = re.compile(r"^\s*`([^`]+)`\s*$")  # a line that is one inline code span: a command
_CODE_LINE = re.compile(r"^\s{2,}\S|[;{}()\[\]]\s*$|\s=\s|^\s*(?:\$|>>>)\s|^\s*<[A-Za-z/][^<>]*>.*>\s*$")  # markup: "<button …>Click</button>"


def _closes(lines: list[str], fences: list[tuple[int, str]]) -> bool:
    """Whether a passage's first fence (a bare one) closes a code block the passage started in:
    the next fence opens one (it names a language), or the count is odd and code precedes it, or
    nothing precedes it and prose follows it (the passage starts at the block's closing fence)."""
    if len(fences) > 1 and fences[1][1]:
        return True
    if len(fences) % 2 == 0:
        return False
    before = [ln for ln in lines[: fences[0][0]] if ln.strip()]
    if not before:
        after = [ln for ln in lines[fences[0][0] + 1:] if ln.strip()][:1]
        return bool(after) and _prose_line(clean_line(after[0]))
    return bool(_CODE_LINE.search(before[-1]))


def _code_spans(lines: list[str]) -> list[tuple[int, int, str]]:
    """(first, last, language) line ranges of fenced code, fences included. A passage cut from a
    longer document may start inside a fence (its first fence closes one: bare, and an odd count)
    or end inside one."""
    fences = [(i, m.group(2)) for i, line in enumerate(lines) if (m := _FENCE.match(line))]
    spans: list[tuple[int, int, str]] = []
    if fences and not fences[0][1] and _closes(lines, fences):
        spans.append((0, fences[0][0], ""))
        fences = fences[1:]
    for k in range(0, len(fences), 2):
        start, lang = fences[k]
        end = fences[k + 1][0] if k + 1 < len(fences) else len(lines) - 1
        spans.append((start, end, lang))
    return spans


_INDENT = re.compile(r"^(?: {4}|\t)")
_INDENTED = "\0indented"  # the language mark of an indented code block (it has none): its lines lose the indent
#: what an indented block's body is when it is not code: an admonition's ("!!! note"), a tab's ("=== ")
_INDENTED_PROSE = re.compile(r"^\s*(?:!!!|\?\?\?|===)")


def _prose_line(line: str) -> bool:
    """Three words or more, nearly all letters and spaces (code is full of marks: ``$ wp --all``,
    ``add_hook( 'x', function() {``), not after a prompt (``> conda update conda``: a command)."""
    letters = sum(c.isalpha() or c == " " for c in line)
    return len(line.split()) >= 3 and letters >= 0.9 * len(line) and not _PROMPTED.match(line)


#: a command line's prompt: ``$``, ``>``, ``%`` or ``>>>`` and a space
_PROMPTED = re.compile(r"^(?:[$>%]|>>>) ")


#: a list item's marker and the spaces after it: how far its content is indented
_ITEM_CONTENT = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)]) {1,4}(?=\S)")


def _indent_of(line: str) -> int:
    expanded = line.expandtabs(4)
    return len(expanded) - len(expanded.lstrip())


def _code_indent(lines: list[str], i: int) -> int:
    """The indent line ``i`` (indented, after a blank line) needs to be code: four columns past the
    content of the list item it is in, else four (CommonMark; Python-Markdown's four spaces too).
    Indented less, it is the item's own content, a nested list ("1. _(a)_ No child … during the
    following hours:" then "    1. _(1)_ A child under sixteen between 11:00 p.m. and 6:00 a.m.;")
    or a paragraph, not code. The item is the nearest one above, less indented than the line, whose
    paragraph (its first line; later lines may be lazy, not indented) the lines between belong to."""
    own = _indent_of(lines[i])
    floor = max(0, i - _CONTAINER_LINES)  # bounded: a passage of thousands of indented lines costs no more
    k = i - 1
    while k >= floor:
        while k >= floor and (not lines[k].strip() or _indent_of(lines[k]) >= own):
            k -= 1
        if k < floor:
            return 4
        while k > floor and lines[k - 1].strip():
            k -= 1  # the first line of that paragraph
        item = _ITEM_CONTENT.match(lines[k])
        if item is not None and _indent_of(lines[k]) < own:
            return len(item.group().expandtabs(4)) + 4
        if _indent_of(lines[k]) == 0:
            return 4
        k -= 1
    return 4


_CONTAINER_LINES = 400  # lines looked through, upwards, for the item a line is in


def _indented_code(lines: list[str], taken: set[int]) -> list[tuple[int, int, str]]:
    """(first, last, ``_INDENTED``) line ranges of Markdown's indented code blocks: lines indented four
    spaces or a tab after a blank line (or a reStructuredText "::"), whose lines read as code,
    not as prose (an admonition's body, an item's own paragraph are indented too)."""
    spans: list[tuple[int, int, str]] = []
    i = 0
    while i < len(lines):
        if i in taken or not lines[i].strip() or not _INDENT.match(lines[i]) or (i > 0 and lines[i - 1].strip()):
            i += 1
            continue
        need = _code_indent(lines, i)
        if _indent_of(lines[i]) < need:  # a list item's own content; code may be nested deeper in it
            i += 1
            continue
        end = i
        while end + 1 < len(lines) and end + 1 not in taken and (
                not lines[end + 1].strip() or _indent_of(lines[end + 1]) >= need):
            end += 1
        while not lines[end].strip():
            end -= 1
        body = [ln.strip() for ln in lines[i : end + 1] if ln.strip()]
        before = next((lines[k].rstrip() for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        prose = sum(map(_prose_line, body))
        if before.endswith("::") or prose * 2 < len(body) and not _INDENTED_PROSE.match(before):
            spans.append((i, end, _INDENTED))
        i = end + 1
    return spans


_ROW_DOC_TABLE = re.compile(r"^table: (.+)$")
_ROW_DOC_CELL = re.compile(r"^[^:\n]{1,80}: \S")


def _row_document(lines: list[str]) -> Block | None:
    """A table row the loaders wrote as its own document (``table: NAME`` then one ``column: value``
    line per cell, see ``ragkit.loaders.table_rows``) read as one row, like a row of a table in
    running text ("Ticket: Adult; Price: £6.50"). The table's name is not made its section: it is
    the subject of every row, so its words would count as support for any question about the
    table, and a question the rows cannot answer would get all of them."""
    body = [ln.strip() for ln in lines if ln.strip()]
    name = _ROW_DOC_TABLE.match(body[0]) if body else None
    if name is None or len(body) < 2 or not all(_ROW_DOC_CELL.match(ln) for ln in body[1:]):
        return None
    return Block("row", "; ".join(body[1:]), "")


def parse_blocks(text: str, heading: str = "", table_header: str = "") -> list[Block]:
    """A passage as typed blocks (see the module docstring); ``heading`` is the section the
    passage starts in (the chunk's heading, when the index keeps it), ``table_header`` the header
    row of the table it starts in, below that header (the chunk's ``table_header``): the rows it
    opens with are labelled by it."""
    lines = _with_bullets(text.splitlines())
    row = _row_document(lines)
    if row is not None:
        return [row]
    if lines and _ROW_DOC_TABLE.match(lines[0].strip()):
        lines = lines[1:]  # a row document whose cells are not "column: value" lines: its table's name
        # (often the document's title and a page number) is the loader's label, not a sentence of it
    fenced = _code_spans(lines)
    taken = {k for start, end, _ in fenced for k in range(start, end + 1)}
    code_at = {start: (end, lang) for start, end, lang in [*fenced, *_indented_code(lines, taken)]}
    blocks: list[Block] = []
    section = heading.split(" > ")[-1].strip() if heading else ""
    header: list[str] | None = None
    inherited = table_cells(clean_line(table_header)) if table_header else None  # until a line that is no row
    group, in_list, i = 0, False, 0
    while i < len(lines):
        if i in code_at:
            end, lang = code_at[i]
            body = [ln for ln in lines[i : end + 1] if not _FENCE.match(ln)]
            if any(ln.strip() for ln in body):
                blocks.append(Block("code", "\n".join(_INDENT.sub("", ln) for ln in body).strip("\n")
                                    if lang == _INDENTED else "\n".join(body).strip("\n"), section,
                                    lang="" if lang == _INDENTED else lang))
            i, in_list, header, inherited = end + 1, False, None, None
            continue
        raw = lines[i]
        i += 1
        if _TAG_LINE.match(raw) or _DIRECTIVE.match(raw) or _LINK_DEFINITION.match(raw):
            continue  # <Listing …>, </Listing>, <div class=…>, {* include *}, /// tip, [ref]: url: layout, not text
        command = _COMMAND_LINE.match(raw)
        if command:  # "`git remote add {{name}} {{url}}`" alone on its line: a command, i.e. code
            blocks.append(Block("code", command.group(1).strip(), section))
            in_list, header, inherited = False, None, None
            continue
        stripped = clean_line(raw)
        cells = table_cells(stripped)
        if cells is not None:
            if is_separator(cells):
                continue
            if header is None and not _headless(stripped, lines[i] if i < len(lines) else ""):
                header = cells
            else:
                header = header if header is not None else inherited  # a table whose header another chunk holds
                blocks.append(Block("row", _row_sentence(header, cells), section))
                header = header or []  # rows of a table whose header is in another passage: cells alone
            continue
        header = None
        if stripped:
            inherited = None
        if not stripped:
            blocks.append(Block("prose", "", section))  # a paragraph break
            continue
        last = blocks[-1] if blocks else None
        if last and last.kind == "item" and _numbered_heading(last, raw, stripped, lines[i - 2]):
            section = last.text  # "2. Radio procedures", then a sentence: a PDF's numbered section heading
            blocks[-1] = last = Block("heading", section, section)
            in_list = False
        elif last and last.kind == "item" and not raw.lstrip().startswith("#") and not _ITEM.match(stripped):
            # an item's wrapped line, indented or not (Markdown's lazy continuation: "(Default 20)")
            blocks[-1] = replace(last, text=_joined_lines(last.text, stripped), section=section)
            continue
        underlined = i < len(lines) and _is_underline(lines[i], stripped)
        if underlined:  # "v0.1.0 (April 20, 2015)" over "-----------": a plain-text file's section heading
            i += 1
        dated = _DATE_LINE.fullmatch(stripped) and _last_text(blocks).kind != "heading"  # not a release heading's date
        if (raw.lstrip().startswith("#") or underlined or dated
                or _is_title(stripped) and not _IMAGE.search(raw)):  # an alt text is no title
            section = stripped.lstrip("#").strip()
            figure = not raw.lstrip().startswith("#") and _label_follows(lines, i)
            blocks.append(Block("heading", section, section, label=figure))
            in_list = False
            continue
        item = _ITEM.match(stripped)
        if item and _CONTENTS_ENTRY.fullmatch(raw.strip()):
            continue  # a table of contents' entry, a link to a heading of the page: it names, never states
        if item:
            if not in_list:
                group, in_list = group + 1, True
            blocks.append(Block("item", stripped[item.end():], section, group, ordered=bool(item.group(2)),
                                indent=len(raw) - len(raw.lstrip())))
            continue
        # an indented paragraph after an item's blank line is the item's own (Markdown): the list goes on
        in_list = in_list and raw[:1] in (" ", "\t") and _last_text(blocks).kind in ("item", "prose")
        label = last is not None and len(last.text.split()) <= 3 and stripped[:1].isupper()
        if last is None or last.kind != "prose" or not last.text or last.text[-1] in ".!?:" or label:
            continues = (last is not None and last.kind == "prose" and bool(last.text) and not label
                         and _quote_depth(raw) == _quote_depth(lines[i - 2]))  # a reply quoted deeper is another's
            blocks.append(Block("prose", stripped, section, continues=continues))
        else:  # emphasis that runs over the line break is read once the lines are one (not in inline code)
            blocks[-1] = Block("prose", _without_emphasis(_joined_lines(last.text, stripped)), section)
    # an HTML comment is the page's note to itself, taken out once an item's lines are joined
    # ("- <!-- https://go.dev/issue/59488 -->" and the item's text on the next line)
    blocks = [replace(b, text=_without_comments(b.text)) if b.kind != "code" and "<!--" in b.text else b
              for b in blocks]
    return _keyed_items([b for b in blocks if b.text])


def _with_bullets(lines: list[str]) -> list[str]:
    """The lines, each bullet alone on its line joined to the line of text after it ("●",
    "elrond-go -" -> "● elrond-go -"): the item it marks. Bullets on lines of their own one after
    the other mark nothing that follows them (a text layer that gives a page's bullets apart from
    their items, at the page's end)."""
    if not any(_LONE_BULLET.match(line) for line in lines):
        return lines
    out: list[str] = []
    for k, line in enumerate(lines):
        if (out and _LONE_BULLET.match(out[-1]) and line.strip() and not _LONE_BULLET.match(line)
                and not (k >= 2 and _LONE_BULLET.match(lines[k - 2]))):
            out[-1] = f"{out[-1].strip()} {line.strip()}"
        else:
            out.append(line)
    return out


#: a list item that only names a key, its description in the one item nested under it
#: ("- `query_parameter_limit`:" then "  - The number of positional arguments …")
_KEY_ITEM = re.compile(r"^\S+(?:\s+\S+){0,3}:$")


def _keyed_items(blocks: list[Block]) -> list[Block]:
    """The blocks, with each item that only names a key joined to the one item after it that
    describes it ("`query_parameter_limit`: The number of positional arguments …"), when that
    item is the key's only one (the next item names a key again, or the list ends): alone, the
    description never says which key it describes."""
    def key(k: int) -> bool:
        return 0 <= k < len(blocks) and blocks[k].kind == "item" and bool(_KEY_ITEM.match(blocks[k].text))

    def described(k: int) -> bool:  # key k, then one item nested under it, then another key or the list's end
        after = blocks[k + 1] if k + 1 < len(blocks) else None
        return (key(k) and after is not None and after.kind == "item" and not key(k + 1)
                and after.group == blocks[k].group and after.indent > blocks[k].indent
                and (key(k + 2) or k + 2 >= len(blocks) or blocks[k + 2].kind != "item"))

    out: list[Block] = []
    k = 0
    while k < len(blocks):
        b = blocks[k]
        if described(k) and (key(k - 2) or key(k + 2)):  # a run of keys, each with its description
            out.append(replace(b, text=f"{b.text} {blocks[k + 1].text}"))
            k += 2
            continue
        out.append(b)
        k += 1
    return out


def _joined_lines(text: str, line: str) -> str:
    """Two lines of one paragraph or item as one, without a link that runs over the line break
    ("a [Common Expression Language" and "(CEL)](https://…) expression")."""
    joined = f"{text} {line}"
    return _LINK.sub(_link_text, joined) if "](" in line else joined


def _without_comments(text: str) -> str:
    """``text`` without its HTML comments (``<!-- … -->``), in one pass; an unclosed one is kept."""
    out, at = [], 0
    while (start := text.find("<!--", at)) >= 0 and (end := text.find("-->", start + 4)) >= 0:
        out.append(text[at:start])
        at = end + 3
    out.append(text[at:])
    return re.sub(r"\s{2,}", " ", "".join(out)).strip()


_HEADING_WORDS = 6  # a numbered line of at most this many words may be a section's heading


def _numbered_heading(item: Block, raw: str, stripped: str, item_line: str) -> bool:
    """Whether a numbered item of one short line without closing punctuation ("2. Radio
    procedures"), followed at once by an unindented line that opens a sentence, is a numbered
    section heading (as a PDF's text lays one out), not a list item the line continues."""
    return (item.ordered and bool(_ITEM.match(item_line.strip())) and len(item.text.split()) <= _HEADING_WORDS
            and item.text.rstrip()[-1:] not in ".!?:;," and raw[:1] not in (" ", "\t")
            and stripped[:1].isupper() and not _ITEM.match(stripped))


def _last_text(blocks: list[Block]) -> Block:
    """The last block that holds text (paragraph breaks are empty prose blocks)."""
    return next((b for b in reversed(blocks) if b.text), Block("prose", "", ""))


#: a time of day written with "a.m."/"p.m." ("5:00 p.m."), and what goes on from it: its day, its
#: date or its time zone ("Monday, July 21", "on Monday", "Eastern Time"), or a word in lower case
_CLOCK_END = re.compile(r"\d(?::\d\d)?\s*[ap]\.m\.$", re.IGNORECASE)
_CLOCK_GOES_ON = re.compile(
    r"(?:[a-z(]|\d|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|(?:January|February|March|April|May|June|July|"
    r"August|September|October|November|December)\b|(?:Eastern|Central|Mountain|Pacific|[A-Z]{2,4}T)\b)")


def split_prose(block: str) -> list[str]:
    """Split at sentence ends, but not after an abbreviation or an initial ("Dr. Halloran"), nor
    after a time of day's "p.m." that its day or date follows ("5:00 p.m. Monday, July 21")."""
    pieces: list[str] = []
    for piece in _SENT_SPLIT.split(block):
        if pieces and (_ABBREVIATION.search(pieces[-1])
                       or _CLOCK_END.search(pieces[-1]) and _CLOCK_GOES_ON.match(piece.lstrip())):
            pieces[-1] += " " + piece
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces if p.strip()]


_ONE_WORD_LABEL = re.compile(r"^\s*[A-Za-z]+:\s+\S")  # "Default: True", "Type: int"
_LABELLED = re.compile(r"^[A-Za-z][\w ]{0,30}:\s+\S")  # "default: `origin`", "Default: True"


def is_sentence(text: str) -> bool:
    """Three words or more, a number, or a labelled value ("default: `origin`")."""
    return len(text.split()) >= 3 or any(c.isdigit() for c in text) or bool(_LABELLED.match(text))


#: a setting assigned on a line of code or configuration ("ENV PDM_CHECK_UPDATE=false", "export NO_COLOR=1")
_ASSIGNMENT = re.compile(r"^(?:(?:export|set|ENV|ARG)\s+)?[A-Za-z_][\w.-]{0,80}\s*=\s*\S")
#: a comment alone on a line of code ("# disable update check", "// retry twice")
_COMMENT = re.compile(r"^(?:#|//)\s*(?!!)(.*\S)")


def code_lines(code: str) -> list[tuple[str, str]]:
    """The lines of a code block that may state a value (a sentence, a number or a setting
    assigned), each with the comment lines just above it ("# disable update check" over
    "ENV PDM_CHECK_UPDATE=false": what the setting does, in words); a console's ``$ `` dropped."""
    out: list[tuple[str, str]] = []
    comment: list[str] = []
    for raw in code.splitlines():
        bare = raw.strip()
        line = bare.removeprefix("$ ")
        if is_sentence(bare) or _ASSIGNMENT.match(line):  # "$ make all" counts its prompt, as before
            out.append((line, " ".join(comment)))
        said = _COMMENT.match(line)
        comment = [*comment, said.group(1)] if said else []
    return out


def split_sentences(text: str) -> list[str]:
    """Sentences of a passage: prose split at sentence ends, each list item and table row a
    sentence of its own; headings, titles and code left out."""
    out = []
    for b in parse_blocks(text):
        if b.kind in ("item", "row"):
            out.append(b.text)
        elif b.kind == "prose":
            out += split_prose(b.text)
    return [s for s in out if is_sentence(s)]
