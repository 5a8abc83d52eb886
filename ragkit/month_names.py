"""The months' names and the abbreviations documents write them as ("Jan", "Sept"): one list for
the search that widens a query's months and the answerer that reads an abbreviation as its month."""

from __future__ import annotations

MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
               "october", "november", "december")

#: an abbreviation, lower-cased, and its month ("may" is its own)
ABBREVIATIONS = {**{name[:3]: name for name in MONTH_NAMES if name != "may"}, "sept": "september"}

__all__ = ["ABBREVIATIONS", "MONTH_NAMES"]
