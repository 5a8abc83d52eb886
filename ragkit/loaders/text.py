"""Plain text files (``.txt``, ``.text``): one document per file.

A ``.txt`` file inside a Sphinx source folder (a ``conf.py`` beside its root document, in its own
folder or one above: ``ragkit.loaders.sphinx_project``) is that project's reStructuredText source
and is read by the reStructuredText loader, so ``:class:`` roles and ````literals```` do not reach
the chunks. Other formats a text file can hold are written out as Markdown, each by its module, in
the order of ``_FORMATS``: a Vim help file (``vim_help``), an OpenAPI, Swagger or AsyncAPI
description in YAML (``api_description``), a commented YAML configuration such as a Helm chart's
``values.yaml`` (``yaml_comments``), an IRC, MeetBot or Pidgin chat log (``chat_log``), a Python
module with docstrings (``python_source``), a C-family, Go, JavaScript, TypeScript or Protocol
Buffers source file with documentation comments (``doc_comments``) and a commented configuration
file, also a sample of one such as ``rtp.conf.sample`` (``config_file``). Any other text is kept as
it is, but for a typewriter's overstrikes: a character struck over itself or over an underscore
with a backspace between ("P\\bPo\\bos\\bst\\btf\\bfi\\bix\\bx", a bold heading of ``nroff``'s output, as
Postfix's README files are written) is read as the character once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from ragkit.loaders.api_description import YAML_SUFFIXES, api_document, declares_api
from ragkit.loaders.base import Included, Loader, format_suffix, read_text
from ragkit.loaders.chat_log import chat_log_to_markdown, is_chat_log
from ragkit.loaders.config_file import CONFIG_SUFFIXES, config_to_markdown, is_config_file
from ragkit.loaders.doc_comments import LANGUAGES, doc_comments_to_markdown
from ragkit.loaders.python_source import python_to_markdown
from ragkit.loaders.sphinx_project import sphinx_source_root
from ragkit.loaders.vim_help import is_vim_help, vim_help_to_markdown
from ragkit.loaders.yaml_comments import has_prose_values, is_commented_yaml, yaml_to_markdown
from ragkit.registry import loaders
from ragkit.types import Document


@loaders.register("text")
class TextLoader(Loader):
    """Reads a UTF-8 (or UTF-16 with BOM) text file as one document titled by its file stem; a
    Sphinx project's ``.txt`` source as reStructuredText; an API description in YAML, a Vim help
    file and a chat log written out as Markdown."""

    name = "text"
    mime = "text/plain"
    # 2: a Sphinx project's .txt source is read as the rst loader's version 4 reads it; 3: an API
    # description in YAML is written out as documentation; 4: a Vim help file is written out; 5: a
    # chat log is written out a message to a paragraph; 6: a Python module with docstrings is written
    # out with them as prose; 7: a chat log's and a docstring's lines are escaped by one rule
    # (``escape_markdown_line``): a chat line starting "#name", "`" or "|" is no longer escaped, an
    # indented docstring line starting like a heading or a fence is; 8: a C-family source file with
    # documentation comments (Javadoc, ``///``) is written out with them as prose; 9: a commented
    # configuration file is written out, its settings as items with the comments that describe them;
    # 10: Go's doc comments (the // lines right above a top-level declaration) likewise; 11: a
    # commented YAML configuration is written out, each key's path beside its comments; 12:
    # JavaScript's and TypeScript's JSDoc and a .proto file's comments likewise, and a declaration
    # ends at its first brace outside parentheses (an annotation's ``{…}`` no longer cuts it); 13: an
    # Ansible plugin's DOCUMENTATION, EXAMPLES and RETURN strings are written out as its page shows them;
    # 14: Go's field, interface-method and grouped-name comments are prose too, a heading a doc comment
    # writes (rustdoc's ``# Panics``) stays a heading under its item's, an undocumented ``impl<T> X<T>``
    # block heads its members, and a Rust ``mod.rs`` is titled with its folder's name; 15: a YAML
    # record whose values are prose (a security advisory's ``description: |``) is written out too; 16: a
    # character struck over with a backspace ("P\bP", nroff's bold) is read once
    version = 16

    include_marker = "include::"  # a Sphinx folder's .txt source, read as reStructuredText

    def included_files(self, path: Path, data: bytes | None = None) -> list[Included]:
        if path.suffix.lower() == ".txt" and sphinx_source_root(path) is not None:
            other = loaders.get("rst")()
            other.use_limits(self.limits)
            return other.included_files(path, data)
        return []

    def load(self, path: Path, *, source: str) -> Iterator[Document]:
        if path.suffix.lower() == ".txt" and sphinx_source_root(path) is not None:
            return self.read_as("rst", path, source=source)  # with this loader's limits
        text = read_text(path)
        if "\b" in text:
            text = _OVERSTRUCK.sub("", text)
        written = _written(text, path, format_suffix(path))  # "rtp.conf.sample" is a .conf
        if written is not None:
            body, title = written
            return iter([Document(text=body, metadata=self._metadata(source, title=title or path.stem,
                                                                    markup="markdown"))])
        return iter([Document(text=text, metadata=self._metadata(source, title=path.stem))])


#: a character a backspace strikes over (what follows it is what is shown: "P\bP" is a bold P,
#: "_\bP" an underlined one)
_OVERSTRUCK = re.compile(r"[^\n\b]\x08")


#: A format a text file can hold, written out as Markdown: ``(body, title)``, or None when the
#: text is not in that format. Title None means the file's stem. Each writer takes the text, the
#: path and the suffix its format is named by (``format_suffix``: "rtp.conf.sample" is a .conf).
Written = tuple[str, str | None] | None


def _vim_help(text: str, path: Path, suffix: str) -> Written:
    return vim_help_to_markdown(text) if is_vim_help(text) else None


def _api_description(text: str, path: Path, suffix: str) -> Written:
    return api_document(text, path) if declares_api(text) else None


def _commented_yaml(text: str, path: Path, suffix: str) -> Written:
    if is_commented_yaml(text) or has_prose_values(text):
        return yaml_to_markdown(text, path.name), path.name
    return None


def _chat_log(text: str, path: Path, suffix: str) -> Written:
    return (chat_log_to_markdown(text), None) if is_chat_log(text) else None


def _python_module(text: str, path: Path, suffix: str) -> Written:
    module = python_to_markdown(text, path.stem)
    return (module, None) if module is not None else None


def _doc_comments(text: str, path: Path, suffix: str) -> Written:
    name = path.parent.name if path.name == "mod.rs" and path.parent.name else path.stem
    documented = doc_comments_to_markdown(text, name, suffix)
    return (documented, name) if documented is not None else None


def _config_file(text: str, path: Path, suffix: str) -> Written:
    return (config_to_markdown(text, path.name), path.name) if is_config_file(text) else None


#: Each format by the suffixes it may have, in the order they are tried.
_FORMATS: tuple[tuple[tuple[str, ...], Callable[[str, Path, str], Written]], ...] = (
    ((".txt",), _vim_help),
    (YAML_SUFFIXES, _api_description),
    (YAML_SUFFIXES, _commented_yaml),
    ((".log", ".txt"), _chat_log),
    ((".py",), _python_module),
    (tuple(LANGUAGES), _doc_comments),
    (CONFIG_SUFFIXES, _config_file),
)


def _written(text: str, path: Path, suffix: str) -> Written:
    """The first format that the file's suffix allows and its text holds, written out."""
    for suffixes, write in _FORMATS:
        if suffix in suffixes and (written := write(text, path, suffix)) is not None:
            return written
    return None
