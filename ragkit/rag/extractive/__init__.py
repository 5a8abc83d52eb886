"""The offline extractive answerer behind the ``local`` provider (``ragkit.rag.local``).

- ``text``: content-word stems, and passages parsed into blocks (sentences, list items, table
  rows, headings, code) with markup removed
- ``answer_type``: the kind of answer a question wants (person, date, number; a list; a how-to;
  a definition; a byline)
- ``values``: questions that ask documentation for a value (a default, a port, a version) and the
  text that states one; the heading a question names
- ``fields``: a form's fields ("Prepared By: …", a label line and its value line) labelled with
  the question's words
- ``query``: the question as the answerer reads it (stems, weights, kind)
- ``engine``: ``extractive_answer(question, passages)``: sentences scored, or the refusal
- ``compose``: the answer written from the scored sentences, every quote cited
"""

from __future__ import annotations

from ragkit.rag.extractive.answer_type import answer_type, has_answer_type, is_howto, wants_list
from ragkit.rag.extractive.engine import REFUSAL, extractive_answer, lacks_asked_kind, unsaid_names
from ragkit.rag.extractive.text import parse_blocks, split_sentences, stem, terms
from ragkit.rag.passages import Passage, parse_passages

__all__ = [
    "REFUSAL", "Passage", "answer_type", "extractive_answer", "has_answer_type", "is_howto", "lacks_asked_kind",
    "parse_blocks", "parse_passages", "split_sentences", "stem", "terms", "unsaid_names", "wants_list",
]
