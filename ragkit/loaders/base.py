"""The loader contract and the checks every loader shares.

A loader turns one file into :class:`~ragkit.types.Document` objects. Its one abstract method is
``load(path, *, source=...)``; ``source`` is the path relative to the indexed root (posix style)
and ends up in every document's metadata together with ``mime`` and, where they apply,
``title``, ``page`` (1-based, PDFs) and ``row`` (0-based, JSONL/CSV).

Loaders raise :class:`~ragkit.errors.LoaderError` before yielding anything when a file cannot be
read, so a caller never has to discard half a file; the pipeline records the error and goes on.
"""

from __future__ import annotations

import errno
import importlib.util
import logging
import os
import re
import stat
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path, PurePath
from typing import Any, ClassVar

from ragkit.errors import ConfigError, LoaderError
from ragkit.loaders.bylines import closing_signature
from ragkit.loaders.encoding import SNIFF_BYTES, decode_text
from ragkit.loaders.limits import DEFAULT_LIMITS, LoadLimits
from ragkit.loaders.ocr import IMAGE_EXTENSIONS, OcrSettings
from ragkit.types import Document

#: a file a page's include read, with the bytes read: what the page's text depends on
Included = tuple[Path, bytes]

log = logging.getLogger(__name__)

#: extension (lower case, with the dot) -> loader registry name
DEFAULT_LOADERS: dict[str, str] = {
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".qmd": "markdown",  # Quarto
    ".rmd": "markdown",  # R Markdown
    ".pdf": "pdf",
    ".html": "html",
    ".htm": "html",
    ".docx": "docx",
    ".doc": "doc",
    ".rtf": "rtf",
    ".org": "org",
    ".adoc": "asciidoc",
    ".asciidoc": "asciidoc",
    ".asc": "asciidoc",  # Pro Git's and other books' AsciiDoc (an armored OpenPGP file is skipped)
    ".fb2": "fb2",
    ".xml": "xml",
    **{ext: "latex" for ext in (".tex", ".latex", ".ltx")},
    ".jsonl": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".xls": "xls",
    ".rst": "rst",
    ".rest": "rst",
    ".ipynb": "notebook",
    ".pptx": "pptx",
    ".ppt": "ppt",
    ".epub": "epub",
    **{ext: "odf" for ext in (".odt", ".ods", ".odp", ".fodt", ".fods", ".fodp")},  # OpenDocument
    ".eml": "eml",
    ".mbox": "mbox",
    ".msg": "msg",
    # manual pages (troff): a section number, bare or with a suffix (``printf.3``, ``Digest.3pm``)
    **{ext: "manpage" for ext in (*(f".{n}" for n in range(1, 10)), ".man", ".1p", ".3p", ".3pm", ".1ssl", ".3ssl",
                                  ".ms")},
}

#: file names ending so are read by the loader named, whatever their last extension: the
#: reStructuredText fragments Sphinx pages include (``prune.rst.inc``), Markdown with embedded
#: Ruby (Middleman's ``index.html.md.erb``)
COMPOUND_LOADERS: dict[str, str] = {".rst.inc": "rst", ".rest.inc": "rst", ".md.erb": "markdown"}

#: plain-text formats read as text (never through ``unstructured``, which is slow for them and needs
#: spaCy): source code, scripts, configuration and data written as text; also files without an
#: extension (``LICENSE``, ``Dockerfile``)
#: source code and configuration among them: their text is code, not sentences (``ragkit.rag.extractive``
#: reads such a file's passage as one code block: a model's ``model.yml`` beside its README is no prose
#: to quote); JSON is left out, since it often holds records of text (a sanctions list's entries)
CODE_EXTENSIONS = (
    ".py", ".pyi", ".pyx", ".sh", ".bash", ".zsh", ".fish", ".ps1", ".toml", ".ini", ".cfg", ".conf",
    ".yaml", ".yml", ".properties", ".rs", ".go", ".java", ".kt", ".kts", ".scala",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".sql", ".r", ".jl", ".lua", ".pl",
    ".hs", ".ex", ".exs", ".erl", ".clj", ".diff", ".patch",
    ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".proto",
)
TEXT_EXTENSIONS = ("", *CODE_EXTENSIONS, ".bib", ".log")
DEFAULT_LOADERS.update({ext: "text" for ext in TEXT_EXTENSIONS})
DEFAULT_LOADERS[".json"] = "json"  # its fields as ``- name: value`` items (``ragkit.loaders.json_document``)
DEFAULT_LOADERS.update({".srt": "subtitles", ".vtt": "subtitles", ".sbv": "subtitles"})  # the cues' text as paragraphs
DEFAULT_LOADERS.update({ext: "mediawiki" for ext in (".mediawiki", ".wiki", ".wikitext")})  # a wiki's pages
DEFAULT_LOADERS[".tid"] = "tiddlywiki"  # TiddlyWiki tiddlers: fields, then wikitext
DEFAULT_LOADERS.update({ext: "texinfo" for ext in (".texi", ".texinfo", ".txi")})  # GNU manuals' sources
DEFAULT_LOADERS.update({".pod": "pod", ".pm": "pod"})  # Perl's documentation, and a module's POD beside its code
DEFAULT_LOADERS[".rd"] = "rd"  # R packages' help pages (man/*.Rd; extensions are matched lower-cased)
# images are read through OCR (discovery passes them on only while OCR is on: ``ragkit.loaders.ocr``)
DEFAULT_LOADERS.update({ext: "image" for ext in IMAGE_EXTENSIONS})

#: bytes inspected for NUL characters when deciding whether a file is binary
BINARY_SNIFF_BYTES = SNIFF_BYTES

#: a path command's numbers, matched once as an atomic group (a lookahead captures them, the
#: backreference consumes them): numbers the pattern could split in many ways ("v2.17.6, v2.18.5,
#: ...", a list of versions) are never retried in every split, which took exponential time
_PATH_NUMBERS = r"[\s,]*(?=((?:-?\d*\.?\d+(?:e-?\d+)?[\s,]*){1,7}))\GROUP"

#: inline data (``data:image/png;base64,...``), long base64 runs and SVG path data (a moveto, then
#: 11 or more commands): never text
_ENCODED_DATA = re.compile(
    r"data:[\w.+-]+/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=]+"
    r"|[A-Za-z0-9+/]{200,}={0,2}"
    r"|[Mm]" + _PATH_NUMBERS.replace("GROUP", "1")
    + r"(?:[MLHVCSQTAZmlhvcsqtaz]" + _PATH_NUMBERS.replace("GROUP", "2") + r"){11,}"
)


class Loader(ABC):
    """Base class of every loader.

    Subclasses set ``name`` (their registry name), ``mime`` and ``option_defaults`` (the options
    they accept, with defaults). Unknown options are a :class:`ConfigError` at construction.
    """

    name: ClassVar[str] = "loader"
    mime: ClassVar[str] = "application/octet-stream"
    option_defaults: ClassVar[Mapping[str, Any]] = {}
    #: the version of the text this loader makes of a file: raised when a change to the loader
    #: changes that text, so an index re-reads the files it read with an earlier version
    #: (recorded with each source as ``name@version``; version 1 as the name alone)
    version: ClassVar[int] = 1
    #: whether ``load`` checks the file as a zip container itself (``zipcheck.check_zip``); the
    #: indexer checks the zip files other loaders read
    checks_zip: ClassVar[bool] = False
    #: the limits of the pipeline (``use_limits``); the defaults until then
    limits: LoadLimits = DEFAULT_LIMITS
    #: the pipeline's ``ocr:`` settings (``use_ocr``); until then none: a loader used on its own
    #: does not OCR (the pipeline's default, ``auto``, comes with ``PipelineLoaders``)
    ocr: OcrSettings = OcrSettings(mode="never")

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            allowed = ", ".join(sorted(self.option_defaults)) or "none (it takes no options)"
            raise ConfigError(
                f"unknown option {unknown[0]!r} for loader '{self.name}'; allowed options: {allowed}"
            )
        self.options: dict[str, Any] = {**self.option_defaults, **options}

    @abstractmethod
    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        """Read ``path`` into documents whose metadata carries ``source`` and ``mime``."""

    #: what a file that includes others writes (``{{#``, ``include::``): the indexer asks
    #: ``included_files`` only of a file whose bytes hold it ("": the loader includes nothing)
    include_marker: ClassVar[str] = ""

    @property
    def include_budget(self) -> int:
        """The bytes one document's includes may pull in (``limits.max_included_mb``)."""
        return int(self.limits.max_included_mb * 1024 * 1024)

    def included_files(self, path: Path, data: bytes | None = None) -> list[Included]:
        """The other files whose text ``load`` puts into ``path``'s documents (a page's includes):
        the indexer hashes them with the file, so a change to one of them reads the page again.
        ``data``: the page's bytes when the caller has read them already (else the page is read).
        Never raises (a file it cannot read includes nothing; ``load`` reports it)."""
        return []

    def use_inner_loaders(self, choose: InnerLoaders) -> None:  # noqa: B027 - a hook for containers only
        """How this loader finds the loader of a file inside what it reads (a mail's attachments):
        the indexer passes one that follows the pipeline's ``loaders:`` mapping. A loader that
        reads no inner files ignores it."""

    def use_limits(self, limits: LoadLimits) -> None:
        """The pipeline's ``limits:``, which the loader's own checks (a zip container's size) use."""
        self.limits = limits

    def use_ocr(self, settings: OcrSettings) -> None:
        """The pipeline's ``ocr:`` settings (with the index's OCR cache), for the loaders that OCR."""
        self.ocr = settings

    def read_as(self, name: str, path: Path, *, source: str) -> Iterator[Document]:
        """``path`` read by the registered loader ``name`` instead (a file whose content is another
        format than its name says), with this loader's limits and OCR settings."""
        from ragkit.registry import loaders

        other = loaders.get(name)()
        other.use_limits(self.limits)
        other.use_ocr(self.ocr)
        return other.load(path, source=source)

    def _metadata(self, source: str, **extra: Any) -> dict[str, Any]:
        meta: dict[str, Any] = {"source": source, "mime": self.mime}
        meta.update({k: v for k, v in extra.items() if v is not None})
        return meta

    def __repr__(self) -> str:
        opts = ", ".join(f"{k}={v!r}" for k, v in self.options.items())
        return f"{type(self).__name__}({opts})"


def check_file(path: Path, *, max_bytes: int) -> None:
    """Raise :class:`LoaderError` unless ``path`` is a readable, non-empty regular file of at most
    ``max_bytes`` bytes."""
    where = str(path)
    if path.is_symlink() and not path.exists():
        target = os.readlink(path)
        if _loops(path):
            raise LoaderError(
                f"{where}: symlink loop (it points to {target!r}, which leads back to itself); fix or remove the link",
                path=where,
                reason="symlink loop",
            )
        raise LoaderError(
            f"{where}: broken symlink (points to {target!r}, which does not exist); fix or remove the link",
            path=where,
            reason="broken symlink",
        )
    try:
        st = path.stat()
    except FileNotFoundError:
        raise LoaderError(f"{where}: file not found", path=where, reason="file not found") from None
    except PermissionError:
        raise _permission_error(where) from None
    if not stat.S_ISREG(st.st_mode):
        raise LoaderError(
            f"{where}: not a regular file (a directory, device or pipe); only regular files are loaded",
            path=where,
            reason="not a regular file",
        )
    if not os.access(path, os.R_OK):
        raise _permission_error(where)
    try:
        with open(path, "rb"):
            pass
    except PermissionError:
        raise _permission_error(where) from None
    if st.st_size == 0:
        raise LoaderError(f"{where}: empty file (0 bytes)", path=where, reason="empty file")
    if st.st_size > max_bytes:
        raise LoaderError(
            f"{where}: file too large ({_size(st.st_size)}, limit {_size(max_bytes)}); "
            "raise sources.max_file_size_mb in the pipeline YAML to index it",
            path=where,
            reason="file too large",
        )


class MarkupLoader(Loader):
    """A markup format written out as one Markdown-structured document (``markup: markdown``, so
    the Markdown splitter gives it a heading path), titled by the markup's own title, else the
    file's stem, its ``authors`` the ones the markup declares (``declared_authors``), else the
    signature under its last paragraph if it is signed (``ragkit.loaders.bylines.closing_signature``).
    A subclass gives ``to_markdown``."""

    @abstractmethod
    def to_markdown(self, text: str, path: Path) -> tuple[str, str | None]:
        """``text`` (the file at ``path``) as Markdown-structured text, and its title if it has one."""

    def declared_authors(self, text: str) -> str | None:
        """The authors ``text`` (the file's own) declares in its markup's author field, or None; a
        markup with such a field reads it."""
        return None

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        raw = read_text(path)
        text, title = self.to_markdown(raw, path)
        authors = self.declared_authors(raw) or closing_signature(text)
        meta = self._metadata(source, title=title or path.stem, markup="markdown", authors=authors)
        return iter([Document(text=text, metadata=meta)])


def code_fence(code: str) -> str:
    """The fence for a Markdown code block holding ``code``: three backticks, or one more than the
    longest run of backticks the code writes, so no line of it closes the block."""
    return "`" * max(3, max((len(run) for run in _BACKTICKS.findall(code)), default=0) + 1)


def fenced_block(lines: list[str], language: str) -> list[str]:
    """``lines`` of code as a fenced Markdown block in ``language`` (its fence from
    :func:`code_fence`) and a blank line after it; blank lines around the code are left out, and
    code of blank lines alone is no block."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    if start == end:
        return []
    code = lines[start:end]
    fence = code_fence("\n".join(code))
    return [f"{fence}{language}", *code, fence, ""]


def code_span(code: str) -> str:
    """``code`` as an inline Markdown code span: its delimiter longer than any run of backticks in
    it, padded with a space when the code starts or ends with one."""
    ticks = "`" * (max((len(run) for run in _BACKTICKS.findall(code)), default=0) + 1)
    pad = " " if code.startswith("`") or code.endswith("`") else ""
    return f"{ticks}{pad}{code}{pad}{ticks}"


_BACKTICKS = re.compile(r"`+")


def split_inline_comment(value: str, markers: str = "#") -> tuple[str, str]:
    """A setting's value and the comment beside it, without the comment's markers: the comment opens
    at one of ``markers`` after a space or tab, outside quotes (``8080  # the port`` -> ``("8080",
    "the port")``; an INI file's markers are ``";#"``)."""
    if not any(marker in value for marker in markers):
        return value.rstrip(), ""
    for match in _inline_comment(markers).finditer(value):
        if match.group()[0] not in "\"'":
            return value[: match.start()].rstrip(), value[match.end():].lstrip(f"{markers}/ \t").strip()
    return value.rstrip(), ""


def _inline_comment(markers: str) -> re.Pattern[str]:
    """A quoted string, or a space or tab and a comment marker."""
    if markers not in _INLINE_COMMENTS:
        _INLINE_COMMENTS[markers] = re.compile(rf"\"[^\"\n]*\"|'[^'\n]*'|[ \t][{re.escape(markers)}]")
    return _INLINE_COMMENTS[markers]


_INLINE_COMMENTS: dict[str, re.Pattern[str]] = {}


def escape_markdown_line(line: str) -> str:
    """``line`` kept as written, escaped with a backslash where Markdown (and ragkit's splitter and
    answerer) would read its start as structure: a heading (``# Note``) or a code fence, also
    when indented up to three spaces. A loader writing a format's text into Markdown calls this for
    each line of prose it copies; the answerer shows the escaped character as written."""
    match = _MARKDOWN_STRUCTURE.match(line)
    if match is None:
        return line
    return f"{match.group(1)}\\{line[match.end(1):]}"


_MARKDOWN_STRUCTURE = re.compile(r"( {0,3})(?:#{1,6}(?:[ \t]|$)|```|~~~)")


def read_text(path: Path) -> str:
    """Read a text file: UTF-8 (a BOM is stripped), UTF-16 or UTF-32 (with or without a BOM:
    ``ragkit.loaders.encoding``); newlines become ``\\n``.

    Inline encoded data (data URIs, base64, SVG path data) is removed, see
    :func:`strip_encoded_data`. Raises :class:`LoaderError` for binary content, undecodable bytes
    or a file without text.
    """
    return text_of(_read_bytes(path), str(path))


def text_of(data: bytes, where: str) -> str:
    """The text of a text file's bytes, read as ``read_text`` reads the file (``where`` names it
    in errors)."""
    text = decode_text(data, where)
    text = strip_encoded_data(text.replace("\r\n", "\n").replace("\r", "\n"))
    if not text.strip():
        raise LoaderError(f"{where}: empty file (no text, only whitespace)", path=where, reason="empty file")
    return text


def strip_encoded_data(text: str) -> str:
    """Remove what only looks like text: data URIs, base64 runs of 200+ characters (longer than
    any hash) and SVG path data (``M10 20 L30 40 ...``), so they are never chunked or embedded.
    Words, numbers, tables, hashes and ordinary URLs are kept."""
    return _ENCODED_DATA.sub("", text)


#: (path of an inner file) -> (loader name, loader), or None when no loader reads it
InnerLoaders = Callable[[Path], "tuple[str, Loader] | None"]


def default_inner_loader(path: Path) -> tuple[str, Loader] | None:
    """The default loader of an inner file (no pipeline mapping): the one of its extension."""
    from ragkit.registry import loaders

    name = loader_name_for(path)
    return (name, loaders.get(name)()) if name is not None else None


#: the endings of a file kept as a sample or template of another, read as that file
#: (``rtp.conf.sample`` as a ``.conf``, ``settings.ini.example``, ``app.cfg.dist``, a build's
#: template ``ip-netns.8.in`` as a manual page)
SAMPLE_SUFFIXES = (".sample", ".example", ".dist", ".default", ".template", ".in")


def format_suffix(path: Path | PurePath) -> str:
    """The lower-cased suffix that tells ``path``'s format: its own, or for a sample of another
    file (``rtp.conf.sample``) the suffix before the sample's ending, when that is one ragkit reads."""
    ext = path.suffix.lower()
    if ext in SAMPLE_SUFFIXES and (inner := PurePath(path.stem).suffix.lower()) and inner in DEFAULT_LOADERS:
        return inner
    return ext


def loader_name_for(path: Path, overrides: Mapping[str, str] | None = None) -> str | None:
    """The registry name of the loader for ``path``, or ``None`` when there is none.

    ``overrides`` maps extensions (``".log"`` or ``"log"``) to loader names and wins over the
    defaults. Unknown extensions go to ``"unstructured"`` when that package is installed.
    """
    ext = path.suffix.lower()
    for key, name in (overrides or {}).items():
        norm = key.lower() if key.startswith(".") else f".{key.lower()}"
        if norm == ext:
            return name
    lowered = path.name.lower()
    if compound := next((name for end, name in COMPOUND_LOADERS.items() if lowered.endswith(end)), None):
        return compound
    if (ext := format_suffix(path)) in DEFAULT_LOADERS:
        return DEFAULT_LOADERS[ext]
    if unstructured_available():
        return "unstructured"
    return None


def import_extra(path: Path, module: str, *, package: str, extra: str) -> Any:
    """Import ``module`` for reading ``path``; when the optional package is missing, a
    :class:`LoaderError` naming the ``pip install 'ragkit[extra]'`` to run (its reason says
    "install", so the file is tried again on the next run)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise LoaderError(
            f"{path}: the optional package '{package}' is needed for {path.suffix or 'these'} files but is not "
            f"installed; install it with: pip install 'ragkit[{extra}]'",
            path=str(path), reason=f"missing dependency: {package} (install ragkit[{extra}])",
        ) from None


def unreadable(path: Path, exc: BaseException, *, what: str, fix: str) -> LoaderError:
    """A file its parser rejects: ``not a readable {what} ({the parser's reason}); {fix}``."""
    reason = parser_reason(path, exc)
    return LoaderError(f"{path}: not a readable {what} ({reason}); {fix}", path=str(path),
                       reason=f"unreadable {what}: {reason}")


def parser_reason(path: Path, exc: BaseException) -> str:
    """What a parser's exception says about ``path``; python-docx's and python-pptx's "Package not
    found at PATH" for a file that is there but is no zip package is said as what it means."""
    if type(exc).__name__ == "PackageNotFoundError" and path.is_file():
        return "not a zip package: the file is truncated, or another kind of file under this name"
    return str(exc) or type(exc).__name__


def xml_parser(*, recover: bool = False) -> Any:
    """The one lxml parser the XML formats (OpenDocument, FictionBook, ``.xml``) read with: it
    expands no entity, loads no DTD and nothing from the network, refuses trees deeper than lxml's
    limit and drops comments and processing instructions; ``recover``: lxml's recovering parser,
    for a file that is not well-formed."""
    from lxml import etree  # python-docx's dependency, so always there

    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                           remove_comments=True, remove_pis=True, recover=recover)


def local_name(tag: Any) -> str:
    """An lxml element's tag without its namespace (``{urn:…}body`` -> ``body``); "" for a
    comment, a processing instruction or an entity, whose tag is no string."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def unstructured_available() -> bool:
    """Whether the optional ``unstructured`` package is installed (without importing it)."""
    try:
        return importlib.util.find_spec("unstructured") is not None
    except (ImportError, ValueError):
        return False


def _loops(path: Path) -> bool:
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except PermissionError:
        raise _permission_error(str(path)) from None
    except IsADirectoryError:
        raise LoaderError(
            f"{path}: not a regular file (a directory)", path=str(path), reason="not a regular file"
        ) from None
    except OSError as exc:
        raise LoaderError(
            f"{path}: cannot read file ({exc.strerror or exc})", path=str(path), reason="read error"
        ) from None


def _permission_error(where: str) -> LoaderError:
    return LoaderError(
        f"{where}: permission denied; make the file readable (chmod +r) or exclude it",
        path=where,
        reason="permission denied",
    )


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


__all__ = [
    "BINARY_SNIFF_BYTES",
    "DEFAULT_LOADERS",
    "Loader",
    "MarkupLoader",
    "TEXT_EXTENSIONS",
    "check_file",
    "import_extra",
    "loader_name_for",
    "read_text",
    "strip_encoded_data",
    "unreadable",
    "unstructured_available",
]
