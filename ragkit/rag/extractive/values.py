"""Questions that ask documentation for a value, and the text that states one.

"What is the default value of dev_addr?", "What port does Waitress listen on by default?",
"Which Python version does HTTPX require?": the answer is a literal (``'127.0.0.1:8000'``, a
port, a version, ``True``, a command's option), usually on a short line under the heading that
names the setting ("### dev_addr ... **default**: `'127.0.0.1:8000'`"), sometimes in a console
block ("Serving on http://127.0.0.1:8080"). This module recognises them:

- ``value_question``: whether a question asks for a value, and which kind (``port``, ``version``,
  ``name``: one function, setting, class … named in code, or any literal);
- ``holds_value``: whether a sentence holds a literal of that kind that the question does not;
- ``declares_default``: "Default: X", "defaults to X", "(Default 100)", "X by default", a
  documented signature's keyword values ("Signature: `form(max_files=1000)`"), and what happens
  when the user sets nothing ("If you don't configure X, …");
- ``named_heading``: whether a heading is named in the question (an identifier such as
  ``dev_addr`` or ``PERMANENT_SESSION_LIFETIME``, a page's title such as "Waitress");
- ``gloss``: a readable reading beside a code-like value (``timedelta(days=31)`` -> "31 days").
"""

from __future__ import annotations

import re

from ragkit.rag.extractive.releases import same_release
from ragkit.rag.extractive.text import AUXILIARY, STOPWORDS, WHICH_OPENING, WORD

#: the nouns of a name in code: a setting, a function, a class … is answered by an identifier
_CODE_NOUNS = ("command|option|flag|setting|function|method|class|parameter|argument|attribute|variable|decorator|"
               "exception|directive|annotation|hook|macro")
_NOUNS = {"port": "port", "ports": "port", "version": "version", "versions": "version", "release": "version",
          "releases": "version", **{n: "name" for n in _CODE_NOUNS.split("|")}}  # several names: a list
_VALUE_NOUNS = (
    "port|version|release|address|url|host|hostname|branch|directory|folder|path|file|filename|encoding|command|"
    "option|flag|setting|extension|scheme|separator|value"
)
#: a value noun that only modifies the noun after it asks for no value ("Which *version control*
#: system …?", "Which *release notes* …?", "Which `hatch version` *invocation* …?": a command)
_MODIFIER = (r"(?<=version)\s+(?:control|invocations?|subcommands?)\b"
             r"|(?<=release)\s+(?:notes|cycle|process|schedule|manager)\b")
_VALUE = re.compile(
    rf"{WHICH_OPENING}\b(?:\s+[\w.-]+){{0,3}}?\s+"
    rf"(?P<noun>(?:{_VALUE_NOUNS})s?|{_CODE_NOUNS})\b(?!-|{_MODIFIER})"
    # not "What error …, assuming no default value was passed?": a default it rules out
    r"|\bby default\b|^\W*(?:what|which|does|is|are|how)\b.*(?<!\bno )(?<!\bwithout )(?<!\bwithout a )\bdefaults?\b",
    re.IGNORECASE,
)
_MEASURE = re.compile(r"\bhow\s+(?:long|many|much|old|big|large|far|often|high|tall|wide|deep)\b", re.IGNORECASE)
_DEFAULT_PLACE = re.compile(r"\b(?:on|in|with|under|from|of)\s+(?:the|a|an|its|their|\w+'s)\s+default\b", re.IGNORECASE)
_PORT = re.compile(
    r"(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[\da-f:]+\]|\b[a-z][\w-]*(?:\.[\w-]+)+|\*):\d{2,5}\b|\bports?\s+\d{2,5}\b",
    re.IGNORECASE,
)
_PORT_WORD = re.compile(r"\bports?\b", re.IGNORECASE)
_BARE_PORT = re.compile(r"(?<![\w.:/=-])\d{2,5}(?![\w.:/-]|\.\d)")  # not another key's "backlog=128"
_VERSION = re.compile(r"\bv?\d+\.\d+(?:\.\d+)*\+?(?!\.?\d)|\bv\d+\b\+?(?!\.\d)|\bversion\s+\d+\b", re.IGNORECASE)
#: a file system path, or a word that may be one (``_is_path`` tells): parts with slashes between,
#: a root, a home, a drive, "$HOME" or "%APPDATA%" before them allowed; a URL is none
_PATH = re.compile(r"(?<![\w/\\.%$~-])(?:(?:~|\$\w{1,40}|%\w{1,40}%|[A-Za-z]:)?[/\\])?(?:[\w.@{}<>-]{1,100}[/\\]){0,30}"
                   r"[\w.@*{}<>-]{0,100}")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://\S{0,2000}", re.IGNORECASE)
_CODE = re.compile(r"`([^`]+)`")
_QUOTED = re.compile(r"'([^'\s][^']*)'|\"([^\"]+)\"")
#: a name in code written without code markup: dotted, snake_case or camelCase, or an option
_IDENTIFIER = re.compile(r"(?<![\w.-])(?:[A-Za-z_]\w*(?:[._:][A-Za-z_]\w*)+|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*"
                         r"|[A-Z][A-Z0-9]*_[A-Z0-9_]+|--?[a-z][\w-]*)(?![\w-])")
_NUMERIC = re.compile(r"[\d.,\s]+")
_CONSTANT = re.compile(r"\b(?:true|false|none|null|nil)\b", re.IGNORECASE)
_NUMBER_WORD = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|hundred|"
    r"thousand)\b", re.IGNORECASE,
)
_DEFAULT = re.compile(
    r"\bdefault[*_`]*\s*[:=]|\bdefaults\s+to\b|\bdefaults?\s+(?:is|are|value\s+is|of)\b|\bdefaults?\s+\d"
    # "the default … is", and so its owner's: "Poetry's default HTTP request timeout is 15 seconds"
    r"|(?:\bthe|\bits|\btheir|['’]s)\s+default\b[^.;]{0,40}?\b(?:is|are)\b|\(\s*(?:the\s+)?defaults?\b|\bby default\b"
    # the default given in brackets after it: "otherwise it will use the default (100 years)"
    r"|\bdefault\s*\(\s*[^()\s]"
    # a documented signature's keyword values are its defaults: "Signature: `form(max_files=1000)`"
    r"|\bsignature\s*:\s*`?[\w.]+\([^)]*\b\w+\s*=\s*[^,)\s]",
    re.IGNORECASE,
)


#: a question that asks what happens when the user sets nothing asks for a default ("… unless I
#: change it?", "… if I don't pass a comparison function?", "… out of the box?")
_DEFAULTS_TO = re.compile(r"\bdefaults\s+to\s+(?:using\s+|the\s+)?([A-Z][\w.+-]*)")
_IMPLIED_DEFAULT = re.compile(
    r"\bunless\s+(?:i|you|we|one)\s+(?:change|set|override|configure|specify|pass|customi[sz]e)\s+(?:it|them|that|this)?"
    r"|\b(?:(?:if|when)\s+(?:i|you|we|one)|and|but)\s+(?:don't|do\s+not|never)\s+(?:change|set|override|configure|specify|pass|give|provide)\b"
    r"|\bwithout\s+(?:changing|setting|overriding|configuring|specifying|passing)\s+(?:it|them|anything)\b"
    r"|\bout\s+of\s+the\s+box\b"
    r"|\b(?:if|when)\s+(?:i|you|we|one)\s+leave\s+(?:it|them|that|this|the\s+[\w.-]+(?:\s+[\w.-]+)?)\s+"
    r"(?:alone|unset|untouched|as\s+it\s+is|as\s+is)\b"
    r"|\b(?:if|when)\s+(?:it|that|this|the\s+[\w.-]+)\s+(?:is|was)\s+(?:left\s+)?(?:unset|not\s+set)\b",
    re.IGNORECASE,
)
#: a sentence that says in words what holds when nothing is set ("If not explicitly set, the first
#: child … is the initial state", "When omitted, …", "If no region is given, …"): it states a default
_UNSET_CLAUSE = re.compile(
    r"\b(?:if|when)\s+(?:it\s+is\s+|this\s+is\s+)?(?:not\s+(?:explicitly\s+)?(?:set|specified|given|provided|"
    r"configured|supplied|passed)|(?:left\s+)?(?:unset|omitted|unspecified))\b"
    r"|\bif\s+no\s+[\w-]+(?:\s+[\w-]+)?\s+is\s+(?:set|specified|given|provided|supplied|passed)\b",
    re.IGNORECASE,
)


def implied_default(question: str) -> str:
    """The phrase by which ``question`` asks for a default without saying "default" ("unless I
    change it", "if I don't pass"), else "": it names no subject, so its words are not matched."""
    match = _IMPLIED_DEFAULT.search(question)
    return match.group() if match else ""


#: "What charset does …?", "Which proxy scheme should I use …?": a noun phrase, then its verb
_INSTANCE = re.compile(
    rf"{WHICH_OPENING}\s+"
    rf"(?!{AUXILIARY}\b|happens\b|if\b|kinds?\b|types?\b|sorts?\b|ways?\b)"
    rf"[A-Za-z][\w.-]*(?:\s+[\w.-]+){{0,2}}?\s+{AUXILIARY}\s",
    re.IGNORECASE,
)


#: "Which agency handled …?", "What charset does …?" (not "What is …?"): which one of a kind it names
_WHICH = re.compile(rf"^\W*(?:what|which)\s+(?!{AUXILIARY}\b)[A-Za-z]"
                    r"|\bwhich\s+(?:other\s+)?[A-Za-z][\w-]*\s*\?\s*$", re.IGNORECASE)  # "… from which other format?"


def asks_which(question: str) -> bool:
    """Whether ``question`` opens by asking which one of a kind of thing it names ("Which agency
    handled the case?"), or ends so ("… took its inspiration from which other format?"), not what
    something is: a form's field labelled with the noun answers it."""
    return bool(_WHICH.search(question))


#: a question asking which document says a thing ("Which recipe can I make with …?", "What
#: chapter covers …?"): the noun of a document, then what the question says of it
_DOCUMENT_ASKED = re.compile(
    r"^\W*(?:what|which)\s+(?:[a-z-]+\s+)?(?:recipes?|pages?|chapters?|articles?|posts?|guides?|tutorials?|"
    r"documents?|papers?|notes?|entry|entries|episodes?|lessons?)"
    r"(?=\s*\?|\s+(?:can|could|should|do|does|did|is|are|was|were|has|have|would|will|tells?|explains?|covers?|"
    r"describes?|introduces?|says|mentions?|shows?|talks?|uses?|needs?|calls?|gives?|discusses?)\b)",
    re.IGNORECASE,
)


def asks_document(question: str) -> bool:
    """Whether ``question`` asks which document (a recipe, a page, a chapter, a paper) says a
    thing: its answer names the document, as its title does."""
    return bool(_DOCUMENT_ASKED.search(question))


def asks_instance(question: str) -> bool:
    """Whether ``question`` asks which one of a kind of thing it names ("What charset does
    Requests fall back to …?", "Which linter does the book install?"): the answer names one,
    often as a literal ("ISO-8859-1", ``socks5h``)."""
    return bool(_INSTANCE.search(question))


#: the noun a question asks for: "Which *university* was …?", "What *licence* is …?" (at most
#: three words before the verb), "What is the maximum *size* in …?" (the phrase after "the", up
#: to a preposition or a verb), "How many stock *options* does …?"
_WHICH_NOUN = re.compile(rf"^\W*(?:what|which)\s+((?:(?!{AUXILIARY}\b)[A-Za-z][\w'’-]*\s+){{0,3}}?){AUXILIARY}\s",
                         re.IGNORECASE)
_THE_NOUN = re.compile(
    rf"^\W*what\s+(?:is|was|are|were)\s+(?:the|a|an)\s+((?:[\w'’.-]+\s+){{0,4}}?[\w'’-]+)"
    rf"(?=\s+(?:of|in|for|that|which|on|to|at|by|with|from|per|between|among|after|before|when|used|{AUXILIARY})\b"
    rf"|\s*\?)", re.IGNORECASE)
#: a preposition after "how much": "How much *per milestone* …?" asks an amount, the noun is its rate
_RATE = r"(?:per|each|a|an|in|of|for|at|on|by|from|with|over|under)"
#: a comparative after "how much" asks a difference ("How much *faster* did loading get?"), no noun
_COMPARATIVE = ("(?:faster|slower|quicker|bigger|smaller|larger|longer|shorter|higher|lower|cheaper|dearer|greater|"
                "wider|narrower|heavier|lighter|older|newer|earlier|later|more|less|fewer|better|worse|further)")
_MANY_NOUN = re.compile(rf"^\W*how\s+(?:many|much|(?:long|big|large|old|far)\s+an?)\s+(?!{_RATE}\b)(?!{_COMPARATIVE}\s+{AUXILIARY}\b)((?:[\w'’-]+\s+){{0,2}}?[\w'’-]+)(?=\s+{AUXILIARY}\b)", re.IGNORECASE)
#: nouns that say no more than "the thing": the noun of their "of" phrase, or their modifier, is asked for
_VAGUE_NOUNS = frozenset("number amount kind type sort name value part way ways".split())
_PARTICIPLES = frozenset("paid used made given required needed called named shown sent done written released added".split())
_ED_NOUNS = frozenset("hundred kindred sacred shred".split())  # nouns (and adjectives) that end in "-ed"
_OF_NOUN = re.compile(r"\s*of\s+(?!the\b|an?\b)([\w'’-]+)", re.IGNORECASE)


def _participle(word: str) -> bool:
    """Whether ``word``, after a noun, is a past participle that describes it ("the total *paid*",
    "the issue *listed* in …"): an irregular one, or a regular "-ed" that no noun ends with ("speed",
    "hundred")."""
    low = word.lower()
    return low in _PARTICIPLES or (len(low) > 4 and low.endswith("ed") and not low.endswith("eed")
                                   and low not in _ED_NOUNS)


def asked_noun(question: str) -> str:
    """The noun that names what ``question`` asks for, as written: "university" for "Which
    university was …?", "pages" for "What is the largest number of pages …?", "telephone" for
    "What is the telephone number of …?", "sabbatical" for "How long a sabbatical …?"; "" when it
    names none ("What is the name of the …?", "What does X do?")."""
    for pattern in (_MANY_NOUN, _WHICH_NOUN, _THE_NOUN):
        match = pattern.search(question)
        words = match.group(1).split() if match else []
        if len(words) >= 2 and _participle(words[-1]):  # "the total *paid*", "the issue *listed*"
            words = words[:-1]
        if not match or not words:
            continue
        if words[-1].lower() not in _VAGUE_NOUNS:
            return words[-1]
        if of := _OF_NOUN.match(question, match.end(1)):
            return of.group(1)
        return words[-2] if len(words) >= 2 and not words[-2].lower().endswith("est") else ""
    return ""


def asked_qualifier(question: str) -> str:
    """The name that qualifies the noun a "Which …?" question asks for, as written: "Rust" of
    "Which Rust crate does …?", "Java" of "Which Java class …?"; "" when none does. An answer that
    names a thing of the noun's kind must be about that name: a JavaScript library is no Rust crate.
    An acronym ("Which CLI flag …?", "Which HTTP header …?") qualifies no name."""
    match = _WHICH_NOUN.search(question)
    words = match.group(1).split() if match else []
    if len(words) >= 2 and words[-2][:1].isupper() and not words[-2].isupper() and not words[-1][:1].isupper():
        return words[-2]  # a name, not an acronym ("Which *CLI* flag …?" qualifies nothing a passage must say)
    return ""


#: "which diskutil command", "what git subcommand": the word before the noun may name the program
_PROGRAM_NOUN = re.compile(r"\b(?:which|what)\s+([A-Za-z][\w.+-]{0,40})\s+(?:sub-?)?(?:command|invocation)s?\b",
                           re.IGNORECASE)


def asked_program(question: str) -> str:
    """The word before the noun of "Which diskutil command …?", "What git subcommand …?", lower-cased:
    the program the command runs when some code of the passages runs it (``runs_program``); an
    adjective ("Which single command …?") is no program, as no code line starts with it."""
    match = _PROGRAM_NOUN.search(question)
    return match.group(1).lower() if match else ""


def runs_program(code: str, program: str) -> bool:
    """Whether a line of ``code`` runs ``program``: starts with it, after a prompt (``$``, ``>``,
    ``%``) or ``sudo``, or after a pipe, ``&&``, ``;`` or ``$(``."""
    if not program:
        return False
    name = re.escape(program)
    return re.search(rf"(?:^|\n|&&|\||;|\$\()[ \t]*(?:[$>%#][ \t]*)?(?:sudo[ \t]+)?{name}(?![\w.-])",
                     code, re.IGNORECASE) is not None


def names_literal(sentence: str, question_words: frozenset[str]) -> bool:
    """Whether ``sentence`` writes a literal the question does not say: a code span, a quoted
    string or a word with a digit ("ISO-8859-1", ``socks5h``); not a number word ("in one step")."""
    literals = [m.group(1) for m in _CODE.finditer(sentence)]
    literals += [m.group(1) or m.group(2) for m in _QUOTED.finditer(sentence)]
    literals += [w for w in WORD.findall(sentence) if any(c.isdigit() for c in w)]
    return any(_new(lit, question_words) for lit in literals)


def writes_new_identifier(sentence: str, question_words: frozenset[str]) -> bool:
    """Whether ``sentence`` writes an identifier (dotted, snake_case, camelCase or an option)
    that the question does not write whole: "renamed to skimage.filters" for "What was the
    skimage.filter subpackage renamed to?", though its words are the question's."""
    return any(name.lower() not in question_words for name in _IDENTIFIER.findall(sentence))


#: the oldest (newest, minimum, …) of a product it names asks for its version: "What is the oldest
#: Python it works with?" (not "Who was the oldest …?", nor "the highest score", no name)
_OLDEST_OF_PRODUCT = re.compile(
    r"^(?!\W*(?i:who|whom|whose)\b).*\b(?i:oldest|newest|latest|earliest|lowest|highest|minimum|maximum)\s+"
    r"(?:(?i:supported)\s+)?(?:(?!I\b)[A-Z][\w+-]*\b"  # a product's name, not "I" ("the latest I can …")
    r"|[\w.+-]+\s+(?i:versions?)\b)")  # or any name before "version": "the minimum restic version"


#: a question that asks where a program keeps, writes or puts something: a path answers it ("Where
#: does mypy keep its incremental cache …?", "On a Mac, where should I write the output of …?").
#: Not "placed", "moved to", "end up" or "create": a host's ingress, a module, a parameter, a named
#: maildir ("Where will mcom create my drafts?": "in Outbox") answer those as often
_WHERE_KEPT = re.compile(
    r"(?:^\W*|[,;]\s+)where\s+(?:does|do|did|is|are|was|were|should|can|will|must|would)\s+(?:[\w.'’/-]+\s+){0,8}?"
    r"(?:keep|store|stored|save|saved|write|written|put|cache|cached|located|live|go|install|installed)\b"
    r"(?![^?]*\bor\b)",  # not "… in Vault or in AWS Secrets Manager?"
    re.IGNORECASE,
)


def _is_path(found: str) -> bool:
    """Whether a ``_PATH`` match is a path: one that starts at a root, a home, a drive or a
    variable, ends with a slash, names a file (a dot in its last part) or has two slashes or more;
    or a dot-directory (".mypy_cache"). Not two words with a slash between ("and/or", "TCP/IP", "1/2")."""
    found = found.rstrip(".")  # a sentence's full stop
    parts = re.split(r"[/\\]", found)
    if len(parts) == 1:
        return bool(re.fullmatch(r"\.[a-z][\w-]{1,60}", found))
    return any(c.isalnum() for c in found) and (
        found[:1] in "/\\~$%." or found[1:2] == ":" or found.endswith(("/", "\\")) or "." in parts[-1] or len(parts) > 2)


def value_question(question: str) -> tuple[bool, str | None]:
    """Whether ``question`` asks for a value, and the kind when it names one (``port``,
    ``version`` or ``path``; None: any literal); a question that asks for a default in other words
    (``implied_default``) asks for one too."""
    if _OLDEST_OF_PRODUCT.search(question):
        return True, "version"
    if _WHERE_KEPT.search(question):
        return True, "path"
    match = _VALUE.search(question)
    if not match or (not match.group("noun") and _MEASURE.search(question) and _DEFAULT_PLACE.search(question)
                     and len(re.findall(r"\bdefault", question, re.IGNORECASE)) == 1):
        # "How long can a meeting last on the default Basic account?" asks for a length, not the
        # default of a setting: the default names where the length holds
        return bool(implied_default(question)), None
    noun = (match.group("noun") or "").lower()
    return True, _NOUNS.get(noun)


_DOTTED = re.compile(r"v?\d+(?:\.\d+)+", re.IGNORECASE)  # a release, with its "v" or not


def _joins(literal: str, question_words: frozenset[str]) -> bool:
    """Whether ``literal`` is a snake_case identifier that joins two or more of the question's
    words, which the question writes apart and never as it ("IPYTHON_KITTY_GRAPHICS" for "Which
    environment variable tells IPython whether my terminal supports kitty graphics?"): a name asked
    for. A file's name ("counts.json" for "… row counts into a JSON file") is not one."""
    words = [w.lower() for w in WORD.findall(literal)]
    joined = "_".join(words)
    return (len(words) > 1 and "_" in literal and bool(re.fullmatch(r"\w+", literal))
            and not any(joined in w.replace(".", "_").replace("-", "_") for w in question_words))


def _new(literal: str, question_words: frozenset[str]) -> bool:
    """Whether ``literal`` says something the question does not. ``question_words`` holds the
    question's words and its identifiers whole (``session_cookie_name``): a literal made of the
    question's words, or of two or more parts of one of its identifiers (``--dev-addr`` for
    ``dev_addr``), is not new; one part alone is ('session', the value of SESSION_COOKIE_NAME)."""
    words = [w.lower() for w in WORD.findall(literal)]
    if not words:
        return True
    if all(w in question_words for w in words):
        return False
    if _DOTTED.fullmatch(literal) and same_release(literal) in {same_release(w) for w in question_words if _DOTTED.fullmatch(w)}:
        return False  # "v2.3.8" is the question's "2.3.8", "v0.10.0" its "0.10", "3.7" its "v3.7"
    joined = f"_{'_'.join(words)}_"
    idents = (f"_{w.replace('.', '_')}_" for w in question_words if "_" in w or "." in w)
    return not any(joined in ident and (len(words) > 1 or joined == ident) for ident in idents)


def holds_value(kind: str | None, sentence: str, question_words: frozenset[str], *, default: bool = False) -> bool:
    """Whether ``sentence`` holds a literal of ``kind`` that the question does not say: a port
    (``127.0.0.1:8000``, "port 5000"), a version (``3.9``), a name in code (a code span, a quoted
    string or an identifier: ``init.defaultBranch``, ``--dry-run``; a number is none), or for any
    other kind a code span, a quoted string, a number or a constant (``True``, ``None``), or what
    follows "Default:". With
    ``default`` (the question asks for a default), a literal of any kind counts only in a sentence
    that declares a default ("Default: X", "defaults to X", "X by default")."""
    if kind is None and default and not declares_default(sentence):
        return False
    if kind == "port":
        if any(_new(m.group(), question_words) for m in _PORT.finditer(sentence)):
            return True
        # a port's own entry gives its number bare: "port (int): TCP/IP port … Default is 8080"
        return bool(_PORT_WORD.search(sentence)) and any(_new(n, question_words) for n in _BARE_PORT.findall(sentence))
    if kind == "version":
        return any(_new(m.group(), question_words) for m in _VERSION.finditer(sentence))
    if kind == "path":  # "~/Library/Caches/pypoetry", "/etc/cups/ssl/site.crt", "src/bin/", ".mypy_cache"
        return any(_is_path(m.group()) and m.group().strip("/\\.").lower() not in question_words
                   for m in _PATH.finditer(_URL.sub(" ", sentence)))
    if kind == "name":  # an identifier: `code`, init.defaultBranch, validate_default, defineAsyncComponent, --dry-run
        names = [m.group(1) for m in _CODE.finditer(sentence) if not _NUMERIC.fullmatch(m.group(1))]
        names += [m.group(1) or m.group(2) for m in _QUOTED.finditer(sentence)] + _IDENTIFIER.findall(sentence)
        # punctuation alone names nothing: "a semicolon in front of that `[`" holds no option
        return any(WORD.search(name) and (_new(name, question_words) or _joins(name, question_words)) for name in names)
    literals = [m.group(1) for m in _CODE.finditer(sentence)]
    literals += [m.group(1) or m.group(2) for m in _QUOTED.finditer(sentence)]
    literals += [w for w in WORD.findall(sentence) if any(c.isdigit() for c in w)]
    literals += _CONSTANT.findall(sentence) + _NUMBER_WORD.findall(sentence)
    # a dotted name ("FTC.gov", ``os.path``; not "e.g"): a domain, a module, a setting
    literals += [i for i in _IDENTIFIER.findall(sentence) if "." in i and min(map(len, i.split("."))) >= 2]
    if any(_new(lit, question_words) for lit in literals):
        return True
    after = re.split(r"\bdefaults?(?:\s+to)?\s*[:=]", sentence, maxsplit=1, flags=re.IGNORECASE)
    if len(after) == 2 and _new(after[1], question_words):
        return True
    # "… defaults to (using) Postgres": a name the question does not say, right after the default's verb
    named = _DEFAULTS_TO.search(sentence)
    return bool(named) and _new(named.group(1), question_words)


_ADDRESS = re.compile(r"(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|\[[\da-f:]+\]):\d{2,5}\b", re.IGNORECASE)


def serves_address(sentence: str) -> bool:
    """Whether ``sentence`` holds a host:port address (``127.0.0.1:8080``, ``localhost:5000``)."""
    return bool(_ADDRESS.search(sentence))


def declares_default(sentence: str) -> bool:
    """"Default: X", "defaults to X", "the default is X" (and "its default …", "Poetry's default … is
    X"), "(Default 100)", "the default (100 years)", "X by default", and a documented signature with keyword values
    ("Signature: `form(max_files=1000)`"); and what happens when the user sets nothing ("If you
    don't configure a credential store, Docker stores credentials in `config.json`")."""
    return bool(_DEFAULT.search(sentence) or _IMPLIED_DEFAULT.search(sentence))


def says_unset_default(sentence: str) -> bool:
    """Whether ``sentence`` says in words what holds when nothing is set ("If not explicitly set,
    the first child … will be considered the initial state"): a default with no literal."""
    return bool(_UNSET_CLAUSE.search(sentence))


def _normal(text: str) -> str:
    return " ".join(w.lower() for w in re.findall(r"[A-Za-z0-9]+", text))


def named_heading(heading: str, question: str) -> bool:
    """Whether ``heading`` is named in ``question`` as a whole (``dev_addr`` in "What is the
    default value of dev_addr?", "Waitress" in "What port does Waitress listen on?"); a heading of
    stopwords only, or one that is only "default", names nothing."""
    words = _normal(heading)
    meaningful = [w for w in words.split() if w not in STOPWORDS and w != "default" and len(w) > 2]
    return bool(meaningful) and f" {words} " in f" {_normal(question)} "


_DURATION = re.compile(r"\btimedelta\(\s*(weeks|days|hours|minutes|seconds)\s*=\s*(\d+(?:\.\d+)?)\s*\)")


def gloss(text: str) -> str:
    """``text`` with a plain reading after a code-like duration: ``timedelta(days=31)`` ->
    ``timedelta(days=31) (31 days)``, unless the text says it already."""

    def reading(m: re.Match[str]) -> str:
        unit, amount = m.group(1), m.group(2)
        plain = f"{amount} {unit[:-1] if amount == '1' else unit}"
        return m.group() if plain in text else f"{m.group()} ({plain})"

    return _DURATION.sub(reading, text)


__all__ = [
    "asked_noun", "asked_program", "asked_qualifier", "asks_document", "asks_instance", "declares_default", "names_literal", "gloss", "holds_value", "implied_default", "named_heading", "runs_program", "says_unset_default", "serves_address",
    "value_question"]
