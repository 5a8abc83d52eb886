"""Python modules documented in their docstrings: written out with each class and function a
heading, its docstring prose under it and the code fenced, so a default or a reason a docstring
states is a sentence the answerer quotes; a script without docstrings stays code. The module is
invented for the test."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.python_source import python_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

MODULE = '''"""Tide helpers for the harbour office.

The ``tides`` module reads gauge logs.
"""

import time

DEFAULT_WINDOW = 45  # minutes


class TideGauge(object):
    """Reads one harbour gauge.

    Args:
        port (str): The harbour's code.
        window (int): The minutes averaged for each reading. Defaults to 45 minutes.
    """

    unit = "metres"

    @property
    def height(self):
        """The last reading, in metres."""
        return self._height

    def _helper(self):
        return 1


def warn_on_surge(level=3.5):
    """Rings the bell when the water rises past *level*.

    The default of 3.5 metres is the quay's height, since the quay floods first.
    """
    def ring():
        return "bell"
    return ring


def undocumented():
    pass
'''


def test_a_module_is_written_out_with_its_docstrings_as_prose_and_its_code_fenced() -> None:
    text = python_to_markdown(MODULE, "tides")
    assert text is not None
    assert text.startswith("# tides\n\nTide helpers for the harbour office.\n\nThe ``tides`` module reads gauge logs.\n\n"
                           "```python\nimport time\n\nDEFAULT_WINDOW = 45  # minutes\n```\n")
    assert "## class TideGauge(object)\n\nReads one harbour gauge.\n" in text
    assert "### def TideGauge.height(self)\n\nThe last reading, in metres.\n\n```python\n    @property\n    def height(self):\n" in text
    assert "### def TideGauge._helper(self)\n\n```python\n    def _helper(self):\n        return 1\n```" in text
    assert "## def warn_on_surge(level=3.5)\n\nRings the bell" in text
    assert "def ring():" in text  # a nested function is its enclosing one's code
    assert "## def undocumented()" in text
    for line in ('unit = "metres"', "return self._height", "return ring"):  # nothing of the code is lost
        assert line in text
    assert '"""' not in text


def test_a_script_or_a_broken_module_is_read_as_it_is() -> None:
    assert python_to_markdown("import sys\n\nprint(sys.argv)\n", "run") is None  # no docstring: code
    assert python_to_markdown('def f(:\n    """Doc."""\n', "broken") is None
    assert python_to_markdown("x = " + "(" * 100_000 + ")" * 100_000 + "\n", "deep") is None


def test_the_text_loader_writes_out_a_documented_module(tmp_path: Path) -> None:
    path = tmp_path / "tides.py"
    path.write_text(MODULE, encoding="utf-8")
    [doc] = loaders.get("text")().load(path, source="tides.py")
    assert doc.metadata["markup"] == "markdown" and doc.text.startswith("# tides\n")
    script = tmp_path / "run.py"
    script.write_text("import sys\nprint(sys.argv)\n", encoding="utf-8")
    [doc] = loaders.get("text")().load(script, source="run.py")
    assert doc.text == "import sys\nprint(sys.argv)\n" and "markup" not in doc.metadata


def test_an_answer_quotes_the_docstring_that_states_the_default() -> None:

    text = python_to_markdown(MODULE, "tides")
    passages = markdown_passages(text, "tides.py")
    answer = extractive_answer("Why does warn_on_surge default to 3.5 metres?", passages)
    assert "quay floods first" in answer


def test_a_long_module_is_written_out_in_linear_time() -> None:
    def module(k: int) -> str:
        return "".join(f'def f{i}(a, b=1):\n    """Doc {i}."""\n    return a\n\n' for i in range(k))

    assert python_to_markdown(module(100), "many") is not None
    assert_linear(lambda body: python_to_markdown(body, "many"), module, 20_000)


PLUGIN = '''#!/usr/bin/python
# -*- coding: utf-8 -*-
from __future__ import annotations

DOCUMENTATION = r"""
---
module: harbour_berth
short_description: Book a berth in a harbour
description:
  - Books, moves or frees a berth through the harbour office's API.
options:
  length:
    description:
      - The vessel's length in metres. Berths shorter than C(length) are skipped.
    type: int
    required: true
  force_move:
    description:
      - Move an existing booking to the new berth.
      - A booked berth is not changed on later runs without setting this to V(true).
    type: bool
    default: false
  tides:
    description: The tide windows to book.
    type: list
    suboptions:
      phase:
        description: Which tide.
        choices: [ebb, flood]
notes:
  - The office's API refuses bookings made less than I(two hours) ahead.
requirements:
  - python >= 3.9
"""

EXAMPLES = r"""
- name: Book a berth
  harbour_berth:
    length: 12
"""

RETURN = r"""
berth:
  description: The booked berth's number.
  returned: success
  type: int
  sample: 7
"""

RETURN_ALIAS = "not documentation"


def main():
    pass
'''


def test_an_ansible_plugins_documentation_strings_read_as_its_page() -> None:
    """DOCUMENTATION, EXAMPLES and RETURN (YAML strings) are the plugin's page: options under
    headings with their descriptions as prose and their defaults, examples fenced, return values."""
    text = python_to_markdown(PLUGIN, "harbour_berth")
    assert text is not None
    assert "## Documentation\n\nBook a berth in a harbour\n\nBooks, moves or frees a berth" in text
    assert ("### force_move\n\nMove an existing booking to the new berth.\n\nA booked berth is not changed on later "
            "runs without setting this to `true`.\n\ndefault: false\n\ntype: bool") in text
    assert "### length\n\nThe vessel's length in metres. Berths shorter than `length` are skipped." in text
    assert "#### tides.phase\n\nWhich tide.\n\nchoices: ebb, flood" in text
    assert "## Notes\n\n- The office's API refuses bookings made less than two hours ahead." in text
    assert "## Requirements\n\n- python >= 3.9" in text
    assert "## Examples\n\n```yaml\n- name: Book a berth\n  harbour_berth:\n    length: 12\n```" in text
    assert "## Return values\n\n### berth\n\nThe booked berth's number.\n\nreturned: success\n\ntype: int\n\nsample: 7" in text
    assert 'RETURN_ALIAS = "not documentation"' in text and "def main():" in text  # the rest is code
    assert "DOCUMENTATION = r" not in text
    passages = markdown_passages(text, "harbour_berth.py")
    answer = extractive_answer("Rerunning harbour_berth leaves our booking where it was. Which option moves it?", passages)
    assert "force_move" in answer, answer


def test_a_documentation_string_that_is_no_plugins_stays_code() -> None:
    for source in ('DOCUMENTATION = "just a sentence"\n', 'DOCUMENTATION = "a: [unclosed"\n',
                   'RETURN = """\n"""\n', "EXAMPLES = ''\n"):
        assert python_to_markdown(source, "m") is None  # no docstring and no documentation: a script


def test_yaml_aliases_do_not_make_a_small_plugin_page_large() -> None:
    aliases = "a: &a {description: x, suboptions: {b: *a, c: *a}}\n"
    text = python_to_markdown(f'DOCUMENTATION = """\nmodule: m\noptions:\n  {aliases}"""\n', "m")
    assert text is not None and len(text) < 20_000


def test_yaml_aliases_in_a_plugins_lists_do_not_expand() -> None:
    """A billion-laughs list (each level nine aliases of the one below) in an option's choices is
    no text: nested lists are left out, so the page stays small and is written at once."""
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"] + [
        f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    options = "\n".join(f"  {line}" for line in levels)
    source = (f'DOCUMENTATION = """\nmodule: m\nlaughs:\n{options}\noptions:\n  opt:\n    description: One.\n'
              f'    choices: *a8\n"""\n')
    text = python_to_markdown(source, "m")
    assert text is not None and len(text) < 20_000 and "### opt" in text
