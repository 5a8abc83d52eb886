"""The offline extractive answerer behind the ``local`` provider (``ragkit.providers.local``).

- ``text``: content-word stems, sentences and table rows of a passage
- ``answer_type``: the kind of answer a question wants (person, date, number)
- ``engine``: ``extractive_answer(question, passages)``, the best cited sentences or the refusal
"""

from __future__ import annotations

from ragkit.rag.extractive.answer_type import answer_type, has_answer_type
from ragkit.rag.extractive.engine import REFUSAL, extractive_answer
from ragkit.rag.extractive.text import split_sentences, stem, terms
from ragkit.rag.passages import Passage, parse_passages

__all__ = [
    "REFUSAL", "Passage", "answer_type", "extractive_answer", "has_answer_type", "parse_passages",
    "split_sentences", "stem", "terms",
]
