"""Plain text files (``.txt``, ``.text``): one document per file.

A ``.txt`` file inside a Sphinx source folder (a ``conf.py`` beside its root document, in its own
folder or one above: ``ragkit.loaders.sphinx_project``) is that project's reStructuredText source
and is read by the reStructuredText loader, so ``:class:`` roles and ````literals```` do not reach
the chunks. A ``.yaml`` file that declares an OpenAPI, Swagger or AsyncAPI description is written
out as documentation (``ragkit.loaders.api_description``), not kept as configuration. A ``.txt``
file in Vim's help format (``*name.txt*`` on its first line, or a ``ft=help`` modeline) is written
out with its headings, examples and links (``ragkit.loaders.vim_help``). A ``.log`` or ``.txt`` chat log
(IRC, MeetBot, Pidgin) is written out a message to a paragraph (``ragkit.loaders.chat_log``), and
a Python module with docstrings with them as prose under its classes' and functions' headings
(``ragkit.loaders.python_source``), a C-family source file (Java, Kotlin, C, C++, C#, Rust, …)
with its documentation comments likewise (``ragkit.loaders.doc_comments``), and a commented
configuration file (``.conf``, ``.ini``, ``.toml``, …; also a sample of one, ``rtp.conf.sample``)
with each setting an item beside the comments that describe it (``ragkit.loaders.config_file``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ragkit.loaders.api_description import YAML_SUFFIXES, api_document, declares_api
from ragkit.loaders.base import Included, Loader, format_suffix, read_text
from ragkit.loaders.chat_log import chat_log_to_markdown, is_chat_log
from ragkit.loaders.config_file import CONFIG_SUFFIXES, config_to_markdown, is_config_file
from ragkit.loaders.doc_comments import doc_comments_to_markdown
from ragkit.loaders.python_source import python_to_markdown
from ragkit.loaders.sphinx_project import sphinx_source_root
from ragkit.loaders.vim_help import is_vim_help, vim_help_to_markdown
from ragkit.loaders.yaml_comments import is_commented_yaml, yaml_to_markdown
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
    # commented YAML configuration is written out, each key's path beside its comments
    version = 11

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
        suffix = format_suffix(path)  # "rtp.conf.sample" is a .conf
        written: tuple[str, str | None] | None = None  # a format the text holds, written out as Markdown
        if suffix == ".txt" and is_vim_help(text):
            written = vim_help_to_markdown(text)
        elif suffix in YAML_SUFFIXES and declares_api(text):
            written = api_document(text, path)
        elif suffix in YAML_SUFFIXES and is_commented_yaml(text):
            written = yaml_to_markdown(text, path.name), path.name
        elif suffix in (".log", ".txt") and is_chat_log(text):
            written = chat_log_to_markdown(text), None
        elif suffix == ".py" and (module := python_to_markdown(text, path.stem)) is not None:
            written = module, None
        elif (documented := doc_comments_to_markdown(text, path.stem, suffix)) is not None:
            written = documented, None
        elif suffix in CONFIG_SUFFIXES and is_config_file(text):
            written = config_to_markdown(text, path.name), path.name
        if written is not None:
            body, title = written
            return iter([Document(text=body, metadata=self._metadata(source, title=title or path.stem,
                                                                    markup="markdown"))])
        return iter([Document(text=text, metadata=self._metadata(source, title=path.stem))])
