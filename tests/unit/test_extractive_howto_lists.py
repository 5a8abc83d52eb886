"""A how-to's description line that leads a list (a cheat sheet for users of another tool:
"delete entire line:" then "- oldvi: `dd`" and "- quill: `xd`") answers with its list, though
its own words only restate the question: what it adds is the list after it. Written for the
shape of an editor's "coming from Vim" page."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

_CHEAT_SHEET = """## Line Deletes

delete to line end:
* oldvi: `D`
* quill: `vgld` or `t<ret>d`

Note: `v` is used along with `gl` (go to line end), because `gl` does not select text.

delete entire line:
* oldvi: `dd`
* quill: `xd`

Note: `x` selects the entire line under the cursor.
"""


def test_the_list_a_howto_line_leads_answers() -> None:
    passages = [Passage(1, _CHEAT_SHEET, {"source": "from-oldvi.md", "heading": "Line Deletes", "start": "0"})]
    answer = extractive_answer(
        "I'm coming from Oldvi. What do I type in Quill to delete an entire line, the equivalent of Oldvi's dd?",
        passages)
    assert "`xd`" in answer and "delete entire line" in answer
    assert "vgld" not in answer
