"""What kind of answer a question asks for (a person, a date, a number; a list; a how-to, which
wants the passage's code block), and whether a sentence holds one: classic answer-type detection."""

from __future__ import annotations

import re
from itertools import pairwise

from ragkit.markdown_tables import CODE_SPAN
from ragkit.month_names import ABBREVIATIONS, MONTH_NAMES
from ragkit.rag.extractive.text import STOPWORDS, WHICH_OPENING, WORD, stem

_QUANTITY_NOUNS = (
    "share|percentage|percent|proportion|fraction|number|amount|price|cost|size|length|height|"
    "depth|distance|speed|rate|temperature|capacity|output|total|sum|value|frequency|age|weight|"
    "area|volume|duration|population|count|commission|discount|fee|salary|tax|accuracy|precision|recall|score"
)
# what bounds a quantity: "the column limit", "the request timeout" ask for a number too
_LIMIT_NOUNS = "limit|limits|timeout|width|threshold|quota|interval"
# heads of a compound asking for a quantity; not "number" or "value", which name what is no
# quantity as often ("the telephone number", "the default value of docs_dir")
_HEAD_NOUNS = "|".join(n for n in f"{_QUANTITY_NOUNS}|{_LIMIT_NOUNS}".split("|") if n not in {"number", "value"})
#: the physical quantities a sentence giving one names too ("Recommended temperature range: -25°C to
#: +70°C"): matched at a lower weight rather than left out, as "which *year*" is ("size", "length",
#: "limit" name too many things in technical text to be matched)
MEASURED_NOUNS = frozenset("temperature speed distance height depth weight area volume capacity frequency population".split())
# words that cannot modify the head noun of a compound ("What is the reason the population fell?")
_NOT_MODIFIERS = "|".join(sorted(STOPWORDS | {"what", "which", "who", "how", "whose"}))
_DATE_NOUNS = "year|years|date|dates|day|days|month|months|decade|century|period|season|time"
# the nouns a date noun only modifies ("Which time units …?", "What date format …?"): no date asked
_DATE_COMPOUNDS = ("units?|zones?|formats?|stamps?|frames?|ranges?|windows?|spans?|slots?|limits?|outs?|series|"
                   "fields?|types?|strings?|values?|objects?|class(?:es)?|modules?|functions?|columns?|settings?|options?|"
                   "parameters?|arguments?|intervals?|resolutions?|precision|complexity|standards?|systems?|servers?|"
                   "conventions?")
#: nouns that name a person by their part: "Which *speaker* at the launch event founded …?" asks who
_PERSON_NOUNS = ("people|speakers?|presenters?|researchers?|members?|contributors?|maintainers?|authors?|"
                 "engineers?|employees?|professors?|lecturers?|instructors?|reviewers?|officers?|chairpersons?|"
                 "founders?|inventors?|panell?ists?|volunteers?|mentors?|judges?|winners?")
#: what follows such a noun when it is the one asked about, not a compound's modifier ("which
#: *developer skills* …"): a preposition, an auxiliary or a verb in the past; not "do" ("What
#: members does a class have?" asks for a program's parts; "Which person does …?" asks who). "Editor"
#: and "chair" are left out: "Which editor …?" asks for a program as often, and a chair is furniture
_PERSON_NEXT = (r"at|of|in|on|from|for|to|with|who|is|are|was|were|has|have|had|can|will|would|should|"
                r"must|left|won|led|wrote|gave|took|said|made|ran|held|spoke|came|[a-z]{2,}ed")
_ANSWER_TYPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("owner", re.compile(r"^\W*whose\b", re.IGNORECASE)),
    ("person", re.compile(rf"^\W*(?:who|whom)\b|(?:^\W*|[,;]\s+)(?:which|what)\s+(?:(?:{_PERSON_NOUNS})\b(?=\s+(?:{_PERSON_NEXT})\b)|person\b)",
                          re.IGNORECASE)),
    # "What colour LED shows …?", "which colour of cable …": a colour is named, "colour" rarely said
    ("colour", re.compile(r"\b(?:what|which)\s+(?P<noun>colou?rs?)\b", re.IGNORECASE)),
    (
        "date",
        re.compile(rf"^\W*when\b|\bsince when\b|\b(?:what|which)\s+(?P<noun>{_DATE_NOUNS})\b(?!\s+(?:{_DATE_COMPOUNDS})\b)",
                   re.IGNORECASE),
    ),
    (
        "number",
        re.compile(
            r"\bhow\s+(?:much|many|far|long|often|big|large|high|tall|deep|wide|heavy|old|fast|hot|cold|short|small|low|"
            r"little|close|soon|narrow|thin|light|cheap|expensive|[a-z]+ly)\b"
            rf"|\b(?:what|which)(?:'s)?(?:\s+(?:is|are|was|were|the|a|an|\w+est|rated|maximum|minimum|average|mean)){{0,3}}"
            rf"\s+(?P<noun>{_QUANTITY_NOUNS}|{_LIMIT_NOUNS})\b"
            # a compound whose head is such a noun: "What's the *column limit* in …?", "the maximum
            # *line length* for …", "GitHub's listed price": one or two words before it (an owner's
            # among them), the head ending the phrase
            rf"|\b(?:what|which)(?:'s)?(?:\s+(?:is|are|was|were|the|a|an|\w+est|maximum|minimum|default)){{0,3}}"
            rf"(?:\s+(?!(?:{_NOT_MODIFIERS})\b)[a-z][a-z0-9-]*(?:['\u2019]s)?){{1,2}}\s+(?P<head>{_HEAD_NOUNS})"
            rf"(?=\s*(?:[?,.]|$|(?:in|for|of|on|at|per|when|that|allowed|used|set|does|do|is|and|or)\b))"
            # what a thing costs: "What does a single-core licence cost?", "… cost per virtual user hour?"
            r"|^\W*what\s+(?:does|do|did|would|will|should)\s+(?:[\w.'’-]+\s+){1,12}?cost\b(?!\s+(?:of|factor)\b)",
            re.IGNORECASE,
        ),
    ),
)
_NUMBER_WORDS = frozenset(
    """zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen
fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand
million billion dozen half twice once single""".split()
)
_MONTHS = frozenset(MONTH_NAMES) | ABBREVIATIONS.keys()
_COLOURS = frozenset("""red orange yellow green blue purple violet pink brown black white grey gray amber cyan
magenta turquoise gold silver""".split())
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())
# words that make a capitalised phrase a place or an organisation rather than a person
_DESIGNATORS = frozenset(
    """island islands isle coast street road avenue lane square bay hill hills mount mountain
mountains river lake sea ocean sound strait harbour harbor port haven point head cape beach cliff cliffs valley
forest park bridge castle church cathedral abbey house hall hut tower centre center building station observatory
museum library university college school institute academy trust society company corporation council ministry press
publisher publishers prize award
department agency office bank hospital club association foundation network group committee board north south
east west northern southern eastern western new great upper lower saint st county city town village district
kingdom republic state states united national royal international the""".split()
)  # and an article: "The Ferry" heads a chapter, no person is called "The"
_YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})s?$")  # a year, or a decade ("the 1960s")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
_HONORIFIC = re.compile(
    r"\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Professor|Sir|Dame|Lord|Lady|Captain|Capt|Rev|Father|Sister)"
    r"\.?\s+[A-Z][a-z]"
)


# what a quantity is measured in, by the words of a number question: a share wants a percentage
# ("What share of the problems does it solve?": "28.8%", not "100 samples"), a price an amount of
# money ("What is the price of the printed edition?": "$20", not "2nd Edition"); a commission or
# a discount either
_MEASURES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("percent", re.compile(r"\b(?:share|percentage|percent|proportion|fraction|accuracy|precision|recall)\b", re.IGNORECASE)),
    ("money", re.compile(r"\b(?:money|price|prices|cost|costs|costed|paid|pay|pays|fee|fees|salary|spend|spent|charge|charged|"
                         r"funding|funded|budget|donate|donated|donation|donations|euros|dollars)\b", re.IGNORECASE)),
    ("rate", re.compile(r"\b(?:commission|discount|tax|interest|markup|margin|tip)\b", re.IGNORECASE)),
)
_PERCENT = re.compile(r"\d\s*%|\bper\s*cent\b|\bpercent\b", re.IGNORECASE)
_MONEY = re.compile(
    r"[$€£¥]\s*\d|\d\s*(?:usd|eur|gbp|dollars?|euros?|pounds?|cents?|k|m|bn)?\s*[$€£¥]|\b\d[\d,.]*\s*(?:usd|eur|gbp|dollars?|euros?|"
    r"pounds?|cents?)\b|\bfree\b|\bno charge\b"
    r"|\b(?:usd|eur|gbp|chf|jpy|cad|aud|nzd|sek|nok|dkk|inr|cny)\s?\d",  # a currency's code before it: "EUR 1,200"
    re.IGNORECASE,
)
_IN_MEASURE = {"percent": (_PERCENT,), "money": (_MONEY,), "rate": (_PERCENT, _MONEY)}


def quantity_measure(question: str) -> str | None:
    """What a number question's answer is measured in (``percent``, ``money`` or ``rate``: either),
    by the words it asks with; None for any other number question, and for one that counts a thing
    ("How many digits of precision …?" asks for digits, not a percentage)."""
    if answer_type(question)[0] != "number" or _HOW_MANY.search(question) or _HOW_LONG.search(question):
        return None  # "after how long is it considered low interest?" asks for a time, not a rate
    much = _HOW_MUCH_OF.search(question)  # "how much unpaid leave …" asks for leave, whatever else is paid
    # (not "how much per milestone …": a rate, whose amount the rest of the question says the measure of)
    asked = much.group("phrase") if much and not _PER.match(much.group("phrase")) else question
    return next((measure for measure, pattern in _MEASURES if pattern.search(asked)), None)


#: "how much" and the thing it asks an amount of, up to its verb ("how much extra unpaid leave can …")
_HOW_MUCH_OF = re.compile(r"\bhow\s+much\s+(?P<phrase>(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:can|could|do|does|did|is|are|was|"
                          r"were|will|would|should|may|might|must|has|have|had)\b", re.IGNORECASE)


_PER = re.compile(r"(?:per|each|every|a|an)\b", re.IGNORECASE)  # "how much *per* milestone": a rate, no thing

#: a number question that asks for a time or a distance, whatever else it says
_HOW_LONG = re.compile(r"\bhow\s+(?:long|often|old|soon|far|late|early)\b", re.IGNORECASE)


def in_measure(measure: str | None, sentence: str) -> bool:
    """Whether ``sentence`` states a quantity in ``measure`` (a percentage, an amount of money);
    True for no measure."""
    return measure is None or any(p.search(sentence) for p in _IN_MEASURE[measure])


#: a case the question states before it asks ("When both … could satisfy a requirement, which …?",
#: "If the cache is full, what …?", "After I log in to the node, which command …?"): the question is
#: what follows it
_CASE_FIRST = re.compile(r"^\W*(?:when|if|once|unless|to|besides|(?:apart|aside)\s+from|other\s+than|except(?:\s+for)?"
                         r"|after|before|while|now\s+that|as\s+soon\s+as)\b"
                         r"[^,?]{3,100},\s*"
                         r"(?=(?:(?:on|in|at|for|from|to|with|by|since|under|after|before)\s+)?"
                         r"(?:what|which|who|whom|whose|how|when|where|why"
                         # or a yes/no or either/or question: "When I give a range like 3:7, *are* the indexes one-based?"
                         r"|is|are|was|were|do|does|did|can|could|will|would|should|must|has|have)\b)", re.IGNORECASE)


_OPENS_WITH_WHICH = re.compile(rf"{WHICH_OPENING}\b", re.IGNORECASE)


def without_case(question: str) -> str:
    """The question without a case, a purpose or an exception it states before asking ("If the cache
    is full, what …?", "To keep server states across a reload, which command …?" -> "which command
    …?"; "Besides dns://, which schemes …?" -> "which schemes …?")."""
    return _CASE_FIRST.sub("", question)


def answer_type(question: str) -> tuple[str | None, frozenset[str]]:
    """The kind of answer a question asks for (``owner``, ``person``, ``colour``, ``date``, ``number`` or
    None) and the type noun to leave out of matching ("which *year*"): classic answer-type
    detection, on what follows a case the question states first ("When both …, which mode …?")."""
    asked = _CASE_FIRST.sub("", question)  # "When both … could satisfy it, which mode …?" asks for a mode
    which = _OPENS_WITH_WHICH.match(asked)
    for kind, pattern in _ANSWER_TYPES:
        match = pattern.search(asked)
        if match and which and match.group().lower().startswith("how"):
            continue  # "Which variable controls *how many* workers …?" asks for a variable, not a number
        if match:
            noun = match.groupdict().get("noun")
            return kind, frozenset({noun.lower()} if noun else ())
    return None, frozenset()


_HOWTO = re.compile(
    r"^\W*(?:and\s+|so\s+|then\s+|(?:since|because|if|when|once|now\s+that|given\s+that)\b[^,?]{1,80},\s*)?"
    r"(?:how\s+(?:do|can|could|should|would|does|to|is|are)\b(?!\s+(?:much|many)\b)"
    r"|what(?:'s|\s+is)\s+the\s+(?:best\s+|right\s+|correct\s+)?way\s+to\b|is\s+there\s+a\s+way\b"
    r"|what\s+(?:do|does|should|must)\s+(?:i|we|you|one)\s+(?:need\s+to|have\s+to|must)\s+"
    r"(?:do|set\s+up|setup|add|write|create|install|configure|change|run|edit|put|use)\b"
    r"|(?:can|could|should)\s+i\b"
    # a command asked for: "What do I run to …?", "Which command do I use to …?"
    r"|what\s+(?:do|should|must|can)\s+(?:i|we|you|one)\s+(?:run|type|execute|invoke)\b"
    r"|(?:what|which)\s+commands?\s+(?:do|does|should|must|can|will)\s+(?:i|we|you|one)\b"
    # ... or named: "What ssh command does the guide show for …?" (not a "command-line flag")
    r"|(?:what|which)\s+(?:[\w.-]{1,30}\s+){0,2}(?:commands?|invocations?)\b(?![-\s]+line))",
    re.IGNORECASE,
)
_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|several|\d+)"
#: words ending in "s" that are no plural noun: "the 2025 budget *was* …" counts nothing
_NOT_PLURALS = r"(?:was|is|has|does|this|its|his|us|as|yes|thus|plus|less|unless|always|perhaps|sometimes)"
#: a plural noun: a word ending in "s", not in "ss", "us" or "is" ("class", "status", "analysis")
_PLURAL = rf"(?!{_NOT_PLURALS}\b)(?!\w*(?:ss|us|is)\b)\w+s\b"
_PLURAL_WORD = re.compile(_PLURAL, re.IGNORECASE)
_COUNTED = re.compile(rf"(?<![\d.,])\b{_COUNT}\s+(?:[\w-]+\s+)?{_PLURAL}", re.IGNORECASE)  # "the three rules"
#: one thing's and the other's: "… on the read-only role compared with the read+write role?" (not a
#: ratio or a difference: "How many times smaller … compared with …?"; nor what a question
#: opening "Compared with the first version, …" asks)
_COMPARISON = re.compile(
    r"^(?!\W*(?:compared|versus|vs)\b)(?!.*\b(?:times|[a-z]{3,}er\s+than|more|less|fewer|smaller|larger|bigger|faster|slower|higher|lower|"
    r"better|worse|cheaper)\b).*(?:\bcompared\s+(?:with|to)\b|\b(?:versus|vs)\b)",
    re.IGNORECASE,
)
_LIST = re.compile(
    rf"\b(?:what|which)\s+(?:are|were)\s+(?:the\s+|its\s+|their\s+)?(?:{_COUNT}\s+)?(?:[\w-]+\s+){{0,2}}\w+s\b"
    rf"|{_COUNTED.pattern}|\blist\b|\b(?:steps|stages|phases|ingredients|requirements)\b"
    rf"|{_COMPARISON.pattern}"
    rf"|^\W*(?:what|which)\s+(?:[\w-]+\s+){{0,2}}{_PLURAL}\s+(?:do|does|did|should|must|are|were|can)\b"
    r"|^\W*what\s+(?:\w+\s+)?can\s+(?:\w+\s+){1,4}?do\b",  # what a thing can do: its options, its powers
    re.IGNORECASE,
)
_VERB_LIST = re.compile(r"\b(?:i|we|you|to)\s+list\b", re.IGNORECASE)
#: a list some one made, kept or ran ("Who … started the list of issues?", "Who put together the
#: word list …?"): the list is what the asker's subject did, not what is asked for
_MADE_LIST = re.compile(
    r"\b(?:start|started|starts|began|begun|begin|begins|create|created|creates|made|make|makes|compiled?|compiles|"
    r"maintain|maintained|maintains|keep|keeps|kept|wrote|write|writes|curated?|curates|put\s+together|"
    r"hosted|hosts|host|ran|runs|run)\s+(?:the|a|an|this|that|its|their|our|his|her)\s+(?:[\w-]+\s+){0,2}list\b",
    re.IGNORECASE)
#: a number of things after a preposition states a condition or a span ("after five years", "for two
#: weeks", "within three days"), not the things asked for
_COUNTED_CONDITION = re.compile(rf"\b(?:after|for|within|over|than|every|past|last|across|between|among)\s+{_COUNT}\b",
                                re.IGNORECASE)
_ORDERED = re.compile(r"\b(?:steps?|stages|phases|order|procedure|method|sequence|instructions)\b", re.IGNORECASE)


#: who defines a term in a definition question: the document, not the asker ("How do I define a route?")
_DEFINER = (r"(?:(?:the|this|that|its)\s+)?(?:book|author|authors|guide|paper|document|chapter|text|spec|specification|"
            r"standard|docs|documentation|manual|handbook|glossary|article|policy|tutorial|course|charter)")
_NAMED = r"(?:the\s+)?(?-i:(?!I\b)[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,3})"  # who defines it, by name ("Wim Vanderbauwhede", "IETF")
_DEFINITION = re.compile(
    # "What is the definition of a monoid?", "How does the book define a pure function?", "How is a
    # monoid defined?", "What does the author mean by purity?"
    r"^\W*what(?:\s+is|['’]s)\s+the\s+definition\s+of\s+(?:(?:a|an|the)\s+)?(?P<definition>[\w\s-]{2,40}?)\s*\??$"
    rf"|^\W*how\s+(?:does|do|did)\s+(?:{_DEFINER}|{_NAMED})\s+define\s+(?:(?:a|an|the)\s+)?(?P<defined>[\w\s-]{{2,40}}?)\s*\??$"
    r"|^\W*how\s+(?:is|are)\s+(?:(?:a|an|the)\s+)?(?P<passive>[\w\s-]{2,40}?)\s+defined\b"
    rf"|^\W*what\s+(?:does|do)\s+{_DEFINER}\s+mean\s+by\s+(?:(?:a|an|the)\s+)?(?P<meant>[\w\s-]{{2,40}}?)\s*\??$"
    r"|^\W*what\s+(?:is|are)\s+(?:(?:a|an|the)\s+)?(?P<term>[\w\s-]{2,40}?)\s*\??$"
    r"|^\W*what\s+(?:does|do)\s+(?:(?:a|an|the)\s+)?(?P<doer>[\w\s-]{2,40}?)\s+do\b",
    re.IGNORECASE,
)
_DEFINED_GROUPS = ("term", "doer", "defined", "definition", "passive", "meant")


def defined_term(question: str) -> str | None:
    """The term a definition question asks about ("What is a scope?" -> "scope", "What does the
    reduce function do?" -> "function"), else None. The term is the phrase's head noun: "What is
    the biggest cause of clutter?" asks about a cause, so "Clutter is …" does not define it."""
    match = _DEFINITION.match(question.strip())
    if not match:
        return None
    asked = next(match.group(g) for g in _DEFINED_GROUPS if match.group(g))
    phrase = re.split(r"\s+of\s+", asked, maxsplit=1)[0].split()
    return phrase[-1].lower() if phrase else None


def definition_frame(question: str) -> frozenset[str]:
    """The words by which a definition question asks for one, outside its term ("book", "define"
    of "How does the book define a pure function?"): they say how it asks, not what about."""
    match = _DEFINITION.match(question.strip())
    if not match:
        return frozenset()
    group = next(g for g in _DEFINED_GROUPS if match.group(g))
    start, end = match.span(group)
    frame = question.strip()[match.start():start] + " " + question.strip()[end:match.end()]
    return frozenset(w.lower() for w in re.findall(r"[A-Za-z]+", frame))


def defines(term: str, sentence: str) -> bool:
    """Whether ``sentence`` defines ``term``: "A scope is the range …", "harvest, which measures
    …", "a reduce function that merges …", "Anti-entropy: every site …"."""
    t = re.escape(term)
    return bool(
        re.search(rf"\b{t}s?\s+(?:is|are|means|refers to)\b|\b{t}s?,?\s+(?:which|that)\s+\w+", sentence, re.IGNORECASE)
        or re.match(rf"^\W*(?:\d+\.\s*)?{t}s?\s*:", sentence, re.IGNORECASE)
        or re.search(rf"\b{t}s?:\s+[a-z]", sentence, re.IGNORECASE)  # "We need frugal computing: achieving our aims …"
    )


_AUTHORSHIP = re.compile(
    r"^\W*who\s+(?:wrote|authored|writes|has written|co-?authored)\b"
    r"|\bwho\s+(?:is|are|was|were)\s+(?:(?:listed|named|credited|given|shown|mentioned|cited)\s+as\s+(?:the\s+|an?\s+)?"
    r"|the\s+)(?:(?:first|lead|main|last|senior)\s+)?(?:co-?)?authors?\b",  # "Who is listed as the author of …?"
    re.IGNORECASE,
)
#: words that name the relation an authorship question asks about, not its subject
AUTHORSHIP_WORDS = frozenset(
    "wrote written write writes authored author authors coauthored paper papers article book chapter report document "
    "proposal proposals rfc "
    "first lead main last senior listed named credited given shown mentioned cited".split()
)


def asks_author(question: str) -> bool:
    """Whether a question asks who wrote a document ("Who wrote the Raft paper?"): its answer is
    the byline under the document's title."""
    return bool(_AUTHORSHIP.search(question))


_ALIAS_QUESTION = re.compile(
    r"^\W*(?:what|which)\s+(?:is|are|was|were)\s+(?:an?\s+)?(?:another|other|alternative|different)\s+"
    r"(?:names?|terms?|words?)\s+for\b"
    r"|^\W*(?:what|how)\s+(?:else\s+)?(?:is|are|was|were)\s+.+?\s+(?:also|otherwise|sometimes)\s+(?:called|known\s+as|named)\b",
    re.IGNORECASE,
)
_ALIAS = re.compile(
    r"\baka\b|\ba\.k\.a\.|\b(?:also|otherwise|sometimes|commonly|often)\s+(?:known\s+as|called|named|termed|"
    r"referred\s+to\s+as)\b|\bor\s+simply\b",
    re.IGNORECASE,
)
_TERM_QUESTION = re.compile(
    r"^\W*what\s+(?:do|does|did)\s+(?:[\w'’.-]+\s+){1,5}?call\b"
    r"|^\W*what(?:'s|’s|\s+is|\s+was|\s+are|\s+were)\s+(?:[\w'’.,-]+\s+){1,12}?called\s*\?"
    # "What is the lexing principle called that says …?": the name's description after "called"
    r"|^\W*what(?:'s|’s|\s+is|\s+was)\s+(?:the|a|an)\s+(?:[\w'’-]+\s+){1,6}?called\s+(?:that|which|who)\b"
    r"|^\W*what\s+(?:is|was)\s+the\s+(?:term|word)\s+for\b",
    re.IGNORECASE,
)
_NAMES_IT = re.compile(r"\b(?:(?:is|are|was|were|be|been)\s+(?:\w+\s+)?(?:called|named|termed|dubbed)|known\s+as|"
                       r"refer(?:s|red)?\s+to\s+(?:\w+\s+)?as|what\s+we\s+call|we\s+call|is\s+the\s+term\s+for)\b"
                       # a thing introduced with its name: "an important principle called **maximal munch**"
                       r"|\b(?:an?|the)\s+(?:[\w-]+\s+){0,3}?(?:called|named|termed|dubbed)\s+(?=[\"“*_`]*[\w])"
                       # a paper naming what it presents: "we design CIRo, a system for …"
                       r"|\bwe\s+(?:design|present|propose|introduce|build|develop|describe|implement)\s+"
                       r"(?-i:[A-Z][\w-]*),\s+(?:a|an)\b", re.IGNORECASE)
_NAME_ORIGIN_QUESTION = re.compile(
    r"^\W*where\s+(?:does|did)\s+(?:the\s+)?name\b.*\bcome\s+from\b"
    r"|^\W*what\s+(?:is|was)\s+(?:\w+\s+){1,4}?named\s+(?:after|for)\s*\?"
    r"|\bthe\s+origin\s+of\s+(?:the|its)\s+name\b",
    re.IGNORECASE,
)
_NAME_ORIGIN = re.compile(r"\bnamed\s+(?:after|for)\b|\bname\b.{0,40}?\b(?:based\s+on|comes?\s+from|derived\s+from|"
                          r"inspired\s+by|taken\s+from)\b", re.IGNORECASE)


#: questions that ask for what something is called, and the sentences that say it: the kind, how
#: the question asks it, how a sentence gives it, and the words the question asks with, not about
NAMING_KINDS: dict[str, tuple[re.Pattern[str], re.Pattern[str], frozenset[str]]] = {
    # "What is another name for a polyfill?": "a polyfill (aka "shim")", "also known as"
    "alias": (_ALIAS_QUESTION, _ALIAS, frozenset("another other alternative different name names term terms word "
                                                 "words also otherwise sometimes called known named".split())),
    # "Where does the name Oslo come from?": "named after", "the name … based on"
    "origin": (_NAME_ORIGIN_QUESTION, _NAME_ORIGIN, frozenset("name named come comes origin after".split())),
    # "What does OpenStack call the period …?": "is referred to as an *embargo*", "we call"
    "term": (_TERM_QUESTION, _NAMES_IT, frozenset("call calls called term word".split())),
}


def naming_kind(question: str) -> tuple[str, frozenset[str]] | None:
    """The naming kind a question asks for (``NAMING_KINDS``) and the words it asks with, or None."""
    return next(((kind, words) for kind, (asks, _, words) in NAMING_KINDS.items() if asks.search(question)), None)


def gives_naming(kind: str, sentence: str) -> bool:
    """Whether ``sentence`` gives what a question of naming ``kind`` asks for."""
    return bool(NAMING_KINDS[kind][1].search(sentence))


#: "Why …?", perhaps after a phrase that sets the scene ("In the histogram discussion, why …?")
_WHY = re.compile(r"^\W*(?:(?:in|on|at|for|from|with|by|given|after|before|during|under|according\s+to)\s[^,?]{2,80},\s*)?"
                  r"(?:and\s+|so\s+|but\s+)?why\b|\bwhat\s+(?:is|was|are)\s+the\s+(?:likely\s+|probable\s+|main\s+)?"
                  r"(?:reason|point|purpose|cause)s?\b|\bfor\s+what\s+reason\b|\bwhat\s+(?:causes|caused)\b", re.IGNORECASE)


def asks_why(question: str) -> bool:
    """Whether a question asks for a reason ("Why should the cache …?", "What is the reason for …?",
    "What is the cause?", "What causes …?", "When I reload saved patterns, why …?")."""
    return bool(_WHY.search(_CASE_FIRST.sub("", question)))


_YES_NO = re.compile(
    r"^\W*(?:if\b[^,?]{1,80},\s*|and\s+|but\s+|so\s+)?"
    r"(?:am|is|are|was|were|do|does|did|can|could|will|would|should|shall|has|have|had|must|may|might)"
    r"(?:n't|\s+not)?\s+(?!there\s+a\s+way\b)\w",
    re.IGNORECASE,
)


def asks_yes_no(question: str) -> bool:
    """Whether ``question`` is answered by yes or no: it opens with an auxiliary verb, perhaps
    after a condition ("If I set X, will …?", "Are there …?", "Does X support …?", "Can I …?",
    which is a how-to too)."""
    return bool(_YES_NO.search(question))


#: a sentence that says no: "does not support", "is not supported", "cannot", "isn't possible"
_NEGATION = re.compile(
    r"\b(?:is|are|was|were|do|does|did|can|could|will|would|should|has|have|must)(?:n't|\s+not)\b"
    r"|\b(?:cannot|can't|won't|unsupported)\b|\bnot\s+(?:supported|possible|allowed|available|implemented)\b"
    r"|\bno\s+(?:way|support)\b",
    re.IGNORECASE,
)


def negates(sentence: str) -> bool:
    """Whether ``sentence`` says something does not hold ("uv does not support the flag", "it is
    not supported", "you cannot …"): the answer "no" to a yes/no question about it."""
    return bool(_NEGATION.search(sentence))


#: a yes/no question whether a thing is in some state: "Am I affected by …?", "Is the cache shared …?",
#: "Are tabs allowed …?": the participle (or -able adjective) that names the state, after a short subject
_STATE_QUESTION = re.compile(
    r"^\W*(?:am|is|are|was|were)(?:n't|\s+not)?\s+(?:[\w.'-]+\s+){1,6}?(?P<state>[a-z]{3,}(?:ed|able|ible))\b",
    re.IGNORECASE,
)


def asked_state(question: str) -> str:
    """The state a yes/no question asks about ("Am I affected by …?" -> "affected"), else ""."""
    match = _STATE_QUESTION.search(question)
    return match["state"].lower() if match else ""


def says_state(state: str, sentence: str) -> bool:
    """Whether ``sentence`` says the state, or its opposite by a prefix: "unaffected", "non-affected"."""
    return bool(state) and bool(re.search(rf"\b(?:un|non-?|in)?{re.escape(state)}\b", sentence, re.IGNORECASE))


#: a yes/no question whether something is obliged: "Do I have to …?", "Must engineers …?", "Is it required …?"
_OBLIGATION_QUESTION = re.compile(
    r"^\W*(?:(?:do|does|did|will|would)(?:n't|\s+not)?\s+[\w\s]{1,40}?\b(?:have|need)\s+to"
    r"|must\b|(?:is|are|was|were)(?:n't|\s+not)?\s+[\w\s]{1,40}?\b(?:required|mandatory|compulsory|obligatory|optional))\b",
    re.IGNORECASE,
)
#: a sentence that says whether a thing is obliged: "Participation is optional", "… appreciated,
#: while not required", "There is no minimum tenure required"
_OBLIGATION = re.compile(
    r"\b(?:optional|(?:not\s+|un)?required|mandatory|compulsory|obligatory|voluntary|need\s+not|needn't"
    r"|(?:do|does|did)(?:n't|\s+not)\s+(?:have|need)\s+to|not\s+necessary|no\s+need)\b",
    re.IGNORECASE,
)


def asks_obligation(question: str) -> bool:
    """Whether ``question`` asks if something is obliged ("Do engineers have to take part in …?")."""
    return bool(_OBLIGATION_QUESTION.search(question))


def says_obligation(sentence: str) -> bool:
    """Whether ``sentence`` says whether something is obliged ("Participation is optional."): the
    answer to a question that asks it, whichever way it goes."""
    return bool(_OBLIGATION.search(sentence))


_MUST = re.compile(r"\b(?:must|shall|(?:has|have|need|needs)\s+to)\b", re.IGNORECASE)


def states_rule(sentence: str) -> bool:
    """Whether ``sentence`` states a rule: what one must, shall or has to do, or whether a thing
    is obliged ("You MUST be able to read a number plate …" states an eyesight standard)."""
    return bool(_MUST.search(sentence)) or says_obligation(sentence)


_CONDITIONAL = re.compile(r"^\W*(?:if|when|once|unless)\b[^,?]{3,100},\s*\w", re.IGNORECASE)


def asks_conditional(question: str) -> bool:
    """Whether a question asks what happens in a case it states first ("If I set X to an empty
    string, what …?", "When the cache is full, which …?"): documentation states the general rule,
    then the case in the next sentence."""
    return bool(_CONDITIONAL.search(question))


_REPLACEMENT = re.compile(r"\b(?:instead|switch\s+to|use\s+now)\s*\?\s*$|^\W*(?:what|which)\b[^?]*\breplaced\s+(?:it|them)\b", re.IGNORECASE)


def asks_replacement(question: str) -> bool:
    """Whether a question asks what to use in place of a thing ("Which loop should I use
    instead?"): documentation says what does not work, then the alternative in the next sentence."""
    return bool(_REPLACEMENT.search(question))


_COLUMNS = re.compile(
    r"^\W*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:names\s+of\s+the\s+)?"
    r"(?:columns|column\s+(?:headers|headings|names|labels)|fields)\b"
    r"|^\W*(?:what|which)\s+columns\s+(?:does|do|did)\b",
    re.IGNORECASE,
)


#: how a thing works or does something ("How does the queue let threads write …?"), not how to do it
_MECHANISM = re.compile(r"^\W*how\s+(?:do|does|did|can|could|is|are|would|will)\s+(?!i\b|we\b|you\b|one\b)", re.IGNORECASE)


def asks_mechanism(question: str) -> bool:
    """Whether a question asks how something works ("How does SqliteQueueDatabase let several
    threads write …?", "How do offers improve on invoices?"), not how the asker does a task."""
    return bool(_MECHANISM.search(question))


def asks_comparison(question: str) -> bool:
    """Whether a question asks one thing's value and the other's ("… for pot soil versus soil for
    nutrient tests?", "… on the read-only role compared with the read+write role?")."""
    return bool(_COMPARISON.search(question))


def asks_columns(question: str) -> bool:
    """Whether a question asks for a table's columns ("What are the column headers of the first
    spreadsheet?", "Which columns does the inventory table have?"): the labels of its cells."""
    return bool(_COLUMNS.search(question))


def is_howto(question: str) -> bool:
    """A how-to question ("How do I read a cookie?"): its answer includes the passage's code."""
    return bool(_HOWTO.search(question))


#: a question that asks how something works or is done (not "How many …?")
_HOW_AUXILIARY = r"how\s+(?:do|does|did|can|could|should|would|will|is|are)\b"
_HOW_DOES = re.compile(rf"^\W*{_HOW_AUXILIARY}", re.IGNORECASE)
#: ... in a clause after the first: ", and how should …", "; how does …" (to the clause's end)
_HOW_DOES_CLAUSE = re.compile(rf"(?<=[,;])\s*(?:and\s+|but\s+)?{_HOW_AUXILIARY}[^,;?]*", re.IGNORECASE)


def wants_list(question: str) -> tuple[bool, bool]:
    """Whether a question asks for a list ("the three rules", "what are the steps"), and whether
    for an ordered one (steps, a procedure). A why question asks for a reason, whatever plural it
    names ("Why doesn't mypy merge the settings of several config files?")."""
    asked = _VERB_LIST.sub(" ", question)  # "How do I list the contents of …": a verb, not a list asked for
    asked = _MADE_LIST.sub(" ", asked)  # "Who started the list of issues?": who made it, not the list
    asked = _COUNTED_CONDITION.sub(" ", asked)  # "after five years of service": when, not what is listed
    if _HOW_DOES.match(asked) or asks_yes_no(asked):  # "How does X let several threads write …?" asks
        asked = _COUNTED.sub(" ", asked)  # how, "Can I run several workers …?" whether, of things it counts
    # so does a later clause: "How long is the embedding, and how should two embeddings be compared?"
    asked = _HOW_DOES_CLAUSE.sub(lambda m: _COUNTED.sub(" ", m.group()), asked)
    wanted = bool(_LIST.search(asked)) and not asks_why(question)
    return wanted, wanted and bool(_ORDERED.search(asked))


_LIST_COUNT = re.compile(rf"\b(?P<count>{_COUNT})\s+(?:\w+\s+)?(?P<noun>\w+s)\b", re.IGNORECASE)
_COUNTS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def list_count(question: str) -> tuple[int | None, str, str]:
    """For a question that names how many things it wants ("What are the three rules of tidy
    data?"): the count (None for "several"), the count word and the plural noun ("rules"); else
    (None, "", ""). The count and the noun say what form the answer takes, not what it is about."""
    match = _LIST_COUNT.search(_VERB_LIST.sub(" ", question))
    if not match:
        return None, "", ""
    word = match.group("count").lower()
    count = int(word) if word.isdigit() else _COUNTS.get(word)
    return count, word, match.group("noun").lower()


_HOW_MANY = re.compile(r"\bhow\s+many\s+(?:of\s+(?:the|these|those|its|their|our|your|his|her|my)\s+)?(?P<phrase>(?:[\w-]+\s+){0,3}?[\w-]+?)(?=\s+(?:do|does|did|are|is|were|was|"
                       r"can|could|will|would|should|has|have|had|in|on|of|at|for|per|a|an|the)\b|\s*\?|$)",
                       re.IGNORECASE)
#: "how much *code* can a jump skip?": a mass noun measured ("65,535 bytes of code"), not "how much does …"
_HOW_MUCH = re.compile(r"\bhow\s+much\s+(?!(?:do|does|did|is|are|was|were|can|could|will|would|should|has|have|had|"
                       r"of|more|less|longer|later|earlier|faster|slower|extra|further|time|money)\b)"
                       r"(?P<phrase>[a-z][\w-]*?)(?=\s+(?:do|does|did|are|is|were|was|can|could|will|would|should|"
                       r"has|have|had|in|on|at|for|per)\b|\s*\?|$)", re.IGNORECASE)
_BROKEN_WORD = re.compile(r"(?<=[a-z])- (?=[a-z])")  # a word a PDF's line broke: "hand- written"
_RATE_WORDS = frozenset("per each every fewer times".split())  # "100 samples per problem", "30x fewer parameters": no count
_COUNT_GAP = 2  # words allowed between a number and the noun it counts ("6 identical layers", "8 million documents")


_HOW_ADJECTIVE = re.compile(r"\bhow\s+(long|old|tall|high|deep|wide|far|big|large|heavy|soon|quickly)\b", re.IGNORECASE)
#: adverbs that ask for a length of time as "how long" does ("How soon must I reply?": "within 1 business day")
_AS_LONG = frozenset({"soon", "quickly"})


def counted_noun(question: str) -> str:
    """The stem of the noun a "how many" question counts ("How many parallel attention *heads*
    does it use?" -> "head"): the last word of the phrase after "how many", or its first plural
    that a word other than a plural follows ("How many pull *requests* went into …?"), or the thing
    whose sorts it counts ("How many kinds of *preview* …?"); for "how long", "how
    old" and the like, the adjective a measure ends with ("1 week *long*", "10 years *old*"), and "long"
    for "how soon" and "how quickly", which ask a length of time too; ""
    for other questions."""
    adjective = _HOW_ADJECTIVE.search(question)
    if adjective:
        return "long" if adjective.group(1).lower() in _AS_LONG else stem(adjective.group(1))
    match = _HOW_MANY.search(question) or _HOW_MUCH.search(question)
    words, cut = _counted_phrase(match)
    if thing := _kinds_of(match, words, cut):  # "How many kinds of preview …?": "six different types of preview"
        return thing
    return stem(words[cut]) if words else ""


#: the words that count sorts of a thing ("How many *kinds* of preview …?"): the thing is counted
_KIND_WORDS = frozenset(stem(w) for w in "kinds types sorts varieties categories flavors flavours styles".split())
_OF_THING = re.compile(r"\s+of\s+(?:the\s+)?([A-Za-z][\w-]*)")


def _kinds_of(match: re.Match[str] | None, words: list[str], cut: int) -> str:
    """The stem of the thing whose sorts a "how many" question counts, when the counted noun is a
    word for sorts ("kinds") the phrase ends with and "of" that thing follows; else ""."""
    if match is None or not words or cut != len(words) - 1 or stem(words[cut]) not in _KIND_WORDS:
        return ""
    thing = _OF_THING.match(match.string, match.end())
    return stem(thing.group(1)) if thing else ""


def _counted_phrase(match: re.Match[str] | None) -> tuple[list[str], int]:
    """The words after "how many" (or "how much") and the place of the noun they count: it ends
    where a plural is followed by a word that is none, the verb or preposition after it ("pull
    *requests* went into", "*people* attended", "*characters* may"), else it is the last word."""
    words = match.group("phrase").split() if match else []
    return words, next((i for i, w in enumerate(words[:-1]) if _plural(w) and not _plural(words[i + 1])),
                       len(words) - 1)


def counted_modifier(question: str) -> str:
    """The stem of the word before the noun a "how many" question counts, when it reads as a
    noun: documents count "8 defers" for "How many *defer* statements …?" and "4 workers" for "How
    many *worker* processes …?"; "" when there is none (or it is a stopword, a number or a word
    with a capital)."""
    match = _HOW_MANY.search(question)
    words, cut = _counted_phrase(match)
    if _kinds_of(match, words, cut):
        return stem(words[cut])  # "three kinds: …" counts them too
    before = words[cut - 1] if 0 < cut < len(words) else ""
    if not before.isalpha() or not before.islower() or before in STOPWORDS or _plural(before):
        return ""
    return stem(before)


#: plurals without an -s
_PLURALS = frozenset("people children men women staff data media feet teeth mice geese police cattle personnel".split())


def _plural(word: str) -> bool:
    low = word.lower()
    return low in _PLURALS or (len(low) > 2 and low.endswith("s") and not low.endswith(("ss", "us", "is"))
                               and low not in STOPWORDS)  # not "its", "has", "this"


def counts(noun: str, sentence: str, *, defined: bool = False) -> bool:
    """Whether ``sentence`` gives a number of ``noun`` (a stem): a number, then the noun in lower
    case after at most two modifiers ("70 characters", "a stack of N = 6 identical layers", "8
    million documents"; not a section number, "2 Character-level Networks", nor "3e) show that
    characters"). After a number in words the noun may be capitalised, as bylaws write their
    defined terms ("Quorum … is five Members"): no section is numbered in words; so may it after
    digits when the question writes it capitalised too (``defined``: "How many Tech Leads …?" is
    answered by "2 or 3 Tech Leads in an SIG are required")."""
    words = WORD.findall(_BROKEN_WORD.sub("", sentence))
    for i, w in enumerate(words):
        if not (digits := any(c.isdigit() for c in w)) and w.lower() not in _NUMBER_WORDS:
            continue
        for k, v in enumerate(words[i + 1:i + 2 + _COUNT_GAP], i + 1):
            if stem(v) == noun and (v[0].islower() or not digits or defined):
                return True
            if (parts := _CAMEL_PART.findall(v)) and len(parts) > 1 and stem(parts[-1]) == noun:
                return True  # a compound name whose last part is the noun: "100 BeamToken" counts tokens
            if v.lower() == "of" and k > i + 1 and k + 1 < len(words) and stem(words[k + 1]) == noun:
                return True  # a measure of it: "65,535 bytes of code", "2 GB of memory"
            if v.lower() in STOPWORDS or v.lower() in _RATE_WORDS or not (v[0].islower() or defined):
                break
    return False


_CAMEL_PART = re.compile(r"[A-Z][a-z]+")  # the parts of a compound name written in CamelCase ("BeamToken")
_ONE = frozenset({"one", "1", "single"})  # a count of one is followed by its noun in the singular


def counts_other(noun: str, sentence: str) -> bool:
    """Whether every number ``sentence`` gives counts things other than ``noun`` (a stem), each
    followed by a plural in lower case after at most two modifiers: "There are 4 scaled tiers"
    gives no number of integrations; "one" by words in lower case, none of them ``noun``: "a
    maximum of one async call" gives no number of issues. A number alone, or before anything
    else, may be the count."""
    words = WORD.findall(_BROKEN_WORD.sub("", sentence))
    found = False
    for i, w in enumerate(words):
        if not (any(c.isdigit() for c in w) or w.lower() in _NUMBER_WORDS):
            continue
        other = False
        after = words[i + 1:i + 2 + _COUNT_GAP]
        for k, v in enumerate(after):
            low = v.lower()
            if stem(v) == noun or not v[0].islower() or low in STOPWORDS or low in _RATE_WORDS:
                break
            if _PLURAL_WORD.fullmatch(v) or w.lower() in _ONE and k == len(after) - 1 and k >= 1:
                other = True
                break
        if not other:
            return False
        found = True
    return found


#: a point in time counted in units ("at the 3-month mark", "after 6 weeks", "within 48 hours"):
#: what "When do new employees have reviews?" is answered with, though it names no date
_UNITS_OF_TIME = r"\b{number}(?:-|\s+){kind}(?:second|minute|hour|day|week|month|quarter|year)s?\b"
_DIGITS = r"\d+(?:\.\d+)?"
_TIME_POINT = re.compile(_UNITS_OF_TIME.format(number=_DIGITS, kind=""), re.IGNORECASE)
#: a day of every month, which dates a deadline that recurs ("until the 5th of the month", "on the
#: 15th of each month", "by the last day of the month")
_DAY_OF_EVERY_MONTH = re.compile(
    r"\b(?:\d{1,2}(?:st|nd|rd|th)|first|last|final)\s+(?:(?:business|working|calendar)\s+)?(?:day\s+)?"
    r"of\s+(?:the|each|every)\s+(?:following\s+|next\s+|calendar\s+)?month\b", re.IGNORECASE)
#: a point in a sequence of play or of work, which answers "When …?" as a date does when no date
#: noun is asked ("at the start of the second round", "on your next turn", "each round"; not "a
#: first step in …", a figure of speech)
_RELATIVE_TIME = re.compile(
    r"\b(?:at|by|from|until|till|before|after)\s+the\s+(?:start|end|beginning|top|middle|close|outset)\s+of\b"
    r"|(?:\b(?:at|on|in|during|after|before|from|until)\s+(?:the\s+|your\s+|its\s+|their\s+)?(?:first|second|third|"
    r"fourth|fifth|next|last|final)|\b(?:each|every))\s+(?:round|turn|step|phase|stage|iteration|cycle|session|encounter)\b",
    re.IGNORECASE,
)
_DATE_NOUN_WORDS = frozenset(_DATE_NOUNS.split("|"))
#: a length of time said in words, which answers "how long" as a number does ("wait a week"), or none
#: ("returns immediately", for "How soon …?")
#: ("a second" is an ordinal before a noun: "a second factor", "a second device")
_SPAN_IN_WORDS = re.compile(r"\b(?:a|an|a\s+few|a\s+couple\s+of|half\s+an?)\s+(?:minute|hour|day|week|"
                            r"fortnight|month|quarter|year|decade)s?\b|\bimmediately\b"
                            r"|\b(?:a|an|a\s+few|a\s+couple\s+of|half\s+an?)\s+seconds?(?![ \t]+(?!(?:or|and|to|of|for|"
                            r"in|before|after|later|between|until|at|so|per)\b)[A-Za-z])\b", re.IGNORECASE)
#: the words of a question "immediately" answers: how soon a thing happens or how long it takes, not
#: how long a state must last ("How long must the maintainer be unreachable …?")
_SOON_WORDS = frozenset("soon quickly fast take takes wait delay".split())


#: a number of units of time, perhaps of a kind ("3.7 hours", "a 7-calendar-day period", "5 business days")
#: (in figures or in words: "for a period of six months"; a point in time is counted in figures only:
#: "arrives five months after 4.1" says no date)
_DURATION = re.compile(_UNITS_OF_TIME.format(
    number=rf"(?:{_DIGITS}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
           r"forty|fifty|sixty|ninety)",
    kind=r"(?:(?:calendar|business|working|work|consecutive|full)(?:-|\s+))?"), re.IGNORECASE)


#: a record's field that gives a length of time as a bare number ("duration: 1643", "Running time: 95")
_DURATION_FIELD = re.compile(r"^\W*(?:duration|length|runtime|running\s+time)\s*:\s*\d", re.IGNORECASE)


def says_duration(sentence: str) -> bool:
    """Whether ``sentence`` gives a length of time ("for 3.7 hours", "a 7-calendar-day waiting
    period", "a week", a record's "duration: 1643"): what "How long did …?" asks for."""
    return bool(_DURATION.search(sentence) or _SPAN_IN_WORDS.search(sentence) or _DURATION_FIELD.search(sentence))


#: an amount of text or storage ("at least 50 characters", "2 GB", "65,535 bytes", "80 columns"):
#: what "What is the maximum length/size …?" asks for, though the answer may not say "length"
_SIZE = re.compile(r"\b\d[\d,.]*(?:\s*|-)(?:characters?|chars|bytes?|bits|[KMGT]i?B|kilobytes?|megabytes?|"
                   r"gigabytes?|terabytes?|words|lines|columns|pixels|px|digits)\b", re.IGNORECASE)


def says_size(sentence: str) -> bool:
    """Whether ``sentence`` gives an amount of text or storage ("no more than 300 characters",
    "a 2 GB limit"): what "What is the maximum length …?" asks for."""
    return bool(_SIZE.search(sentence))


#: how often something happens, said in words ("quarterly review", "every two weeks", "twice a year",
#: "on an annual basis")
_FREQUENCY = re.compile(
    r"\b(?:hourly|daily|nightly|weekly|fortnightly|bi-?weekly|monthly|bi-?monthly|quarterly|semi-?annually|annually|"
    r"yearly|every\s+(?:other\s+|\w+\s+)?(?:second|minute|hour|day|night|week|fortnight|month|quarter|year|sprint|"
    r"release)s?|(?:once|twice|\w+\s+times)\s+(?:a|an|per|every)\s+\w+|"
    r"on\s+an?\s+(?:annual|yearly|quarterly|monthly|weekly|daily|nightly|hourly)\s+basis)\b", re.IGNORECASE)
_HOW_OFTEN = re.compile(r"\bhow\s+often\b|\bhow\s+frequently\b|\bat\s+what\s+(?:interval|frequency)\b", re.IGNORECASE)


def asks_frequency(question: str) -> bool:
    """Whether ``question`` asks how often ("How often must …?", "At what interval …?")."""
    return bool(_HOW_OFTEN.search(question))


def gives_frequency(question: str, sentence: str) -> bool:
    """Whether ``question`` asks how often and ``sentence`` says it in words ("must include
    quarterly review …" for "How often does governance sit down with …?"): a frequency is the
    number asked for."""
    return bool(_HOW_OFTEN.search(question) and _FREQUENCY.search(sentence))


#: what a number in a sentence may be besides a count or an amount: a release ("0.7.x", "2.0.1",
#: "v3.5"), a date ("Oct 2016", "March 3, 2021", "2021-03-03"), or the number of an issue or a
#: pull request a change log's entry ends with ("(753)", "#753"), or a reference to a part of a
#: text ("as in 2b) above", "section 4.2", "§ 3")
_NOT_AMOUNTS = re.compile(
    r"(?<![\w.])(?:v\d++(?:\.\d++)*+|\d++(?:\.\d++){2,}+|\d++(?:\.\d++)*+\.x)(?!\w|\.\w)"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*+\.?\s++(?:\d{1,2}(?:st|nd|rd|th)?,?\s++)?"
    r"(?:1[0-9]{3}|20[0-9]{2})\b"
    r"|\b(?:1[0-9]{3}|20[0-9]{2})-\d{2}-\d{2}\b"
    r"|(?<![\w&])#\d+\b|\((?:#|gh-|GH-)?\d+\)(?=[.;]?\s*$)"  # an issue or a pull request: "#753", "… (753)." at the end
    r"|(?<![\w.])\d+[a-z]\)|(?:\b(?:sections?|clauses?|paragraphs?)|§)\s*\d+(?:\.\d+)*[a-z]?\b"
    # an idiom that counts nothing: "a one-time cleanup", "a two-way sync", "one-off"
    r"|\b(?:one|two)-(?:time|off|way|stop|click|liners?|to-one|to-many)\b"
    # ... nor do "one or more", "one another", "no one", "one by one" and "one of the": "forwarded
    # through one or more intermediaries" gives no size
    r"|\bone\s+(?:or\s+more|another|by\s+one)\b|\bno\s+one\b"
    r"|\bone\s+of\s+(?:the|a|an|its|their|our|your|these|those|them|us|many|several)\b",
    re.IGNORECASE,
)


#: a count given as having no bound: "there is no limit to how many Blackboards can be in this
#: chain", "an unlimited number of", "any number of"
_UNBOUNDED = re.compile(r"\bno\s+(?:upper\s+)?(?:limit|maximum)\b|\bunlimited\b|\bany\s+number\s+of\b", re.IGNORECASE)
_DECADE = re.compile(r"\b(?:1[0-9]|20)[0-9]0s\b|['’][0-9]0s\b")  # "the 1960s", "the '90s"
#: a web address: its digits are a path's, no year or count of a sentence's
_URL = re.compile(r"\b(?:https?|ftp)://\S+|\bwww\.\S+", re.IGNORECASE)


def has_answer_type(kind: str | None, sentence: str, question_words: frozenset[str],
                    common: frozenset[str] = frozenset()) -> bool:
    """Whether ``sentence`` holds something new (not in the question) of the wanted kind (an
    ``owner``, for "Whose …?": a person, or a project, a team or a company named as one).
    ``common``: the stems of words written in lower case around it, which name no one."""
    if kind is None:
        return True
    sentence = _URL.sub(" ", sentence)  # "https://2019.example.org/talks" holds no year, no number
    novel = [w for w in WORD.findall(sentence) if w.lower() not in question_words]
    if kind == "number":  # a word that starts with a digit ("37", "3.5", "2nd"), not a name with one ("S3", "Wang1"),
        # nor a part of a release ("0.7.x", "v2.1") or of a date ("Oct 2016"): a count or an amount is neither
        amounts = [w for w in WORD.findall(_NOT_AMOUNTS.sub(" ", sentence)) if w.lower() not in question_words]
        span = _SPAN_IN_WORDS.search(sentence)
        return any(w[:1].isdigit() or w.lower() in _NUMBER_WORDS for w in amounts) or bool(span) and (
            span.group().lower() != "immediately" or bool(question_words & _SOON_WORDS)) or bool(_UNBOUNDED.search(sentence))
    if kind == "date" and _DURATION_FIELD.search(sentence):
        return False  # "duration: 1554" is a length in seconds, no year
    if kind == "date" and "decade" in question_words:
        return bool(_DECADE.search(sentence))  # "Which decade …?": "the 1960s", not a day of 2019
    if kind == "date":  # a time of day, a year, a month, a weekday, or a point a number of units in ("the 3-month mark")
        if "when" in question_words and not question_words & _DATE_NOUN_WORDS and _RELATIVE_TIME.search(sentence):
            return True  # "When does the GM first set the die?": "at the start of the second round"
        return bool(_CLOCK.search(sentence) or _TIME_POINT.search(sentence) or _DAY_OF_EVERY_MONTH.search(sentence)) or any(
            _YEAR.match(w) or (w.lower() in _MONTHS and w[0].isupper()) or w.lower().rstrip("s") in _WEEKDAYS
            for w in novel
        ) or any(day not in question_words for day in _days_of_month(sentence))
    if kind == "colour":  # "an orange LED", "the green wire"
        return any(w.lower() in _COLOURS for w in novel)
    if kind == "person" and question_words & _CONTACT_WORDS and _EMAIL.search(sentence):
        return True  # "Who do I contact?": "please contact adjustments@turing.ac.uk"
    if kind == "person" and _HANDLE.search(CODE_SPAN.sub(" ", sentence)):
        return True  # "Who fixed …?": "@dennissergeev changed …", a change log's contributor by their handle
    if kind == "person" and question_words & _PERMISSION_WORDS and _GROUP.search(sentence):
        return True  # "Who is allowed to log in?": "any member of the GitHub organisation can"
    if kind in ("owner", "person") and question_words & _DUTY_WORDS and _DUTY_HOLDER.search(sentence):
        return True  # "Whose job is it to …?": "It is the role of the Company Secretary to ensure …"
    if (kind == "person" and question_words & _DUTY_WORDS and (item := _ACTION_ITEM.match(sentence))
            and item.group(1).lower() not in common | question_words):
        return True  # "Who was tasked with …?": minutes' action item "Helen to continue to drive the validation work"
    if kind == "owner" and (_OWNER.search(sentence) or any(
            m[1].lower() not in question_words for m in _POSSESSOR.finditer(sentence))):
        return True  # "from the Astral `python-build-standalone` project"; "Chesterton's fence"
    return bool(_HONORIFIC.search(sentence)) or _has_personal_name(sentence, question_words, common)


#: a day of a month, beside the month's name: "June 4", "4 June", "the 4th of June"
_DAY_MONTH = re.compile(r"\b(?P<month>[A-Z][a-z]{2,8})\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?\b(?!:)"
                        r"|\b(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>[A-Z][a-z]{2,8})\b")


def _days_of_month(sentence: str) -> list[str]:
    """The days a sentence dates to the day: a month asked for already ("In June 2020 …, on which
    day …?") is still answered by "expired … on June 4, 2020", its day the novel part."""
    days = []
    for m in _DAY_MONTH.finditer(sentence):
        month, day = (m["month"], m["day"]) if m["month"] else (m["month2"], m["day2"])
        if month.lower() in _MONTHS and 1 <= int(day) <= 31:
            days.append(day)
    return days


#: a person's handle on a code host, as change logs credit people ("@dennissergeev"), not an e-mail
#: address's domain; a decorator in code (`@property`) is none (code spans are left out first)
_HANDLE = re.compile(r"(?<![\w@.+-])@[A-Za-z0-9](?:[A-Za-z0-9_-]{0,38})(?![\w@-]|\.\w)")
#: a question that asks whom to write to ("Who do I contact?", "Whom should I email?") is answered
#: by a mailbox as by a name
_CONTACT_WORDS = frozenset({"contact", "email", "e-mail", "mail", "reach", "notify", "write"})
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
#: a question that asks who may do a thing ("Who is allowed to …?", "Who can access …?") is
#: answered by a group of people as by a name
_PERMISSION_WORDS = frozenset({"allowed", "permitted", "can", "may", "access", "able", "eligible"})
_GROUP = re.compile(
    r"\b(?:any|every|all|only)\s+(?:[\w-]+\s+){0,2}?(?:members?|users?|staff|employees?|maintainers?|admins?|"
    r"administrators?|owners?|contributors?|developers?|teams?|people|persons?)\b"
    r"|\bmembers?\s+of\b|\b(?:anyone|anybody|everyone|everybody)\b"
    # a restriction names who may: "Access … shall be limited to authorized source IP addresses only"
    r"|\b(?:limited|restricted|reserved)\s+to\s+(?:the\s+)?(?!\d)[a-z]",
    re.IGNORECASE,
)
#: a question that asks whose duty a thing is ("Whose job is it to …?", "Who is responsible for …?")
#: is answered by a role as by a name: "It is the role of the Company Secretary to …", "The Board is
#: responsible for …"
_DUTY_WORDS = frozenset({"job", "role", "responsibility", "duty", "task", "responsible", "accountable", "tasked",
                         "assigned", "actioned"})
#: an action item of minutes: a name, then "to" and what they are to do ("Helen to continue to drive
#: the validation work", "Owen and Doug to draft the syntax"); the first name is read against the
#: passages' lower-case words ("Click to open" is no one's task)
_ACTION_ITEM = re.compile(r"^\W*([A-Z][a-z]+)(?:\s+(?:and\s+)?[A-Z][a-z]+)*\s+to\s+[a-z]")
_DUTY_HOLDER = re.compile(
    r"\b(?:role|job|responsibility|duty|task)\s+of\s+(?:the\s+|a\s+|an\s+|our\s+)?[A-Z][\w-]*"
    r"|\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,3}\s+(?:is|are)\s+(?:responsible|accountable|in\s+charge)\b"
)
#: a name in the possessive ("Chesterton's fence" for "Whose fence …?"; not "It's", "Here's")
_POSSESSOR = re.compile(r"\b(?!(?:It|That|There|Here|What|Who|Where|Let|He|She|This)['’])([A-Z][\w-]*[a-z])['’]s\b")
#: what names an owner beside a person ("Whose builds …?"): a project, a team, a company
_OWNER = re.compile(
    r"\b(?:by|from|of)\s+(?:the\s+)?(?:[A-Z][\w.-]*\s+)*`?[\w.-]+`?\s+"
    r"(?:project|team|organi[sz]ation|company|foundation|community|group)\b"
)


#: a surname with a capital inside it ("McAdams", "LeCun", "DeVries", "O'Neil"); any other word
#: with one is a product's or a project's name ("CPython", "JavaScript", "GitHub")
_SURNAME = re.compile(r"^(?:Mc|Mac|Fitz|O'|D'|De|Di|Da|Du|El|La|Le|Van|Von)[A-Z][a-z]+$")  # ElGamal, FitzGerald
_PARENTHESES = re.compile(r"\s*\([^()]*\)")
_NAME_GAP = re.compile(r"\s+(?:[A-Z]\.?\s+)*")  # between two words of a name: "John C. Ames"
_NAME_LINE_WORDS = 8  # a line of at most this many capitalised words (and "and") may be names alone


def _has_personal_name(sentence: str, question_words: frozenset[str], common: frozenset[str] = frozenset()) -> bool:
    """Two adjacent capitalised words (initials aside) of which neither is a place or organisation
    designator and at least one is neither from the question nor ``common`` (a word the passages
    write in lower case: "Preserving Formulation" in a title), not opening the sentence unless the line
    is only such words and "and" (a byline: "Marta Quell", "Marta J. Quell", "Marta Quell (@mquell)":
    what a line adds in parentheses is left out): "Ada Lovelace" yes,
    "Thomas Carrow" yes when the question names Edith Carrow, "Port Aldous" no."""
    sentence = _PARENTHESES.sub("", sentence).strip() or sentence  # a handle: "Ada Quill (@aquill)"
    found = [m for m in WORD.finditer(sentence) if not (len(m[0]) == 1 and m[0].isupper())]  # initials: "John C. Ames"
    words = [m[0] for m in found]
    # a name's words stand apart by spaces (and initials) alone: "Privacy: A Utility" or
    # "Utility-Preserving" (a title) are not two words of one name
    joined = [bool(_NAME_GAP.fullmatch(sentence, a.end(), b.start())) for a, b in pairwise(found)]
    byline = (0 < len(words) <= _NAME_LINE_WORDS and sentence.rstrip()[-1:] not in ".!?:"
              and all(w[0].isupper() or w == "and" for w in words))
    name = [
        (i > 0 or byline) and w[0].isupper() and not w.isupper() and w.lower() not in _DESIGNATORS
        and (w[1:].islower() or bool(_SURNAME.match(w)))  # "CPython", "PyPy": a product's name
        for i, w in enumerate(words)
    ]
    novel = [w.lower() not in question_words and stem(w) not in common for w in words]
    organised = _organisation_words(words, joined)
    return any(
        name[i] and name[i + 1] and joined[i] and (novel[i] or novel[i + 1]) and not organised[i]
        for i in range(len(words) - 1)
    ) or any(m[1].lower() not in question_words and stem(m[1]) not in common and m[1].lower() not in _DESIGNATORS
             for m in _AGENT_SURNAME.finditer(sentence))


def _organisation_words(words: list[str], joined: list[bool]) -> list[bool]:
    """For each word, whether it is in a run of capitalised words, one after another, that a
    designator ends or holds: "Capital Area SQL Server User Group" names a group, "Ada Lovelace
    Institute" an institute, neither a person."""
    organised = [False] * len(words)
    start = 0
    for i in range(len(words) + 1):
        if i < len(words) and words[i][0].isupper() and (i == start or joined[i - 1]):
            continue
        run = range(start, i)
        if any(words[k].lower() in _DESIGNATORS and words[k].lower() != "the" for k in run):
            for k in run:
                organised[k] = True
        start = i if i < len(words) and words[i][0].isupper() else i + 1
    return organised


#: a surname alone as the one who did a scholar's deed: "Lumsdaine constructed the Hopf fibration",
#: "Brunerie proved that …" (a word the passages write in lower case is no surname: "This showed …")
_AGENT_SURNAME = re.compile(
    r"(?<![\w.-])([A-Z][a-z]{2,}(?:-[A-Z][a-z]+)?)\s+(?:first\s+)?(?:constructed|proved|showed|introduced|invented|"
    r"discovered|conjectured|devised|formulated|coined|proposed)\b")


_ACRONYM = re.compile(
    r"\bwhat\s+(?:does|do|did)\s+(?:the\s+)?(?:acronym\s+|abbreviation\s+|initialism\s+)?[\"'`“]?(?P<a>[A-Za-z][\w&.-]{1,15}?)"
    r"[\"'`”]?\s+stands?\s+for\b"
    r"|\bwhat\s+is\s+[\"'`“]?(?P<b>[A-Za-z][\w&.-]{1,15}?)[\"'`”]?\s+short\s+for\b"
    r"|\bwhat\s+is\s+the\s+(?:full\s+(?:form|name)|expansion|long\s+form)\s+of\s+(?:the\s+)?[\"'`“]?(?P<c>[A-Za-z][\w&.-]{1,15}?)[\"'`”]?\s*\??$",
    re.IGNORECASE,
)
#: the words an acronym question asks with, not about
ACRONYM_WORDS = frozenset("stand stands short full form name expansion long acronym abbreviation initialism".split())
_CONNECTORS = frozenset("of and for from the to in on a an with by".split())


def asked_acronym(question: str) -> str:
    """The acronym a question asks to expand ("What does IIFE stand for?" -> "IIFE", "What is
    C4 short for?" -> "C4"), else ""."""
    match = _ACRONYM.search(question.strip())
    word = next((g for g in match.groups() if g), "") if match else ""
    return word if any(c.isupper() for c in word) else ""


def _letters(acronym: str) -> str:
    """The initials an acronym spells, a digit repeating the letter before it ("C4" -> "CCCC",
    "W3C" -> "WWWC"); a lower-case letter after a capital is part of its word, no initial
    ("ELMo": Embeddings from Language *Mo*dels, "GloVe": *Glo*bal *Ve*ctors)."""
    out = ""
    for i, c in enumerate(acronym):
        if c.isalpha() and (c.isupper() or i == 0 or not acronym[i - 1].isalpha()):
            out += c.upper()
        elif c.isdigit() and out:
            out += out[-1] * (int(c) - 1)
    return out if len(out) >= 2 else "".join(c.upper() for c in acronym if c.isalpha())


def expands(acronym: str, sentence: str) -> bool:
    """Whether ``sentence`` spells ``acronym`` out: consecutive words whose initials are its
    letters, small connectors ("of", "and") skipped ("Immediately Invoked Function Expression",
    "Colossal Clean Crawled Corpus", "Bank of England")."""
    letters = _letters(acronym)
    words = [w for w in WORD.findall(sentence) if w.lower() != acronym.lower()]
    if len(letters) < 2:
        return False

    def spells(i: int, k: int) -> bool:
        if k == len(letters):
            return True
        if i == len(words):
            return False
        if words[i][0].upper() == letters[k] and spells(i + 1, k + 1):
            return True
        return k > 0 and words[i].lower() in _CONNECTORS and spells(i + 1, k)

    return any(w[0].upper() == letters[0] and spells(i, 0) for i, w in enumerate(words))
