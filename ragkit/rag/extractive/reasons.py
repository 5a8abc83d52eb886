"""Where an answer's reason or its correction is: in the sentence beside the one that matched.

Documentation rarely answers a yes/no, a why or an "if …, what …?" question in one sentence. It
says the one thing and then corrects or completes it ("There are *not* several versions. There's
just one, …"; "NO_COLOR removes color only. Styles such as bold are preserved."; a claim, then the
sentence that explains it; the general rule, then the case), so two neighbouring sentences of a
paragraph are read, and scored, as one candidate (``sentence_pairs``). For a why question the
answer is completed where the reason is: the sentence after one that gives none, when it opens
with a consequence ("Otherwise, …", ``consequent``), or the fact before a piece of advice that
does not say why ("X imports the modules." before "make sure their main routine is protected",
``grounds``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ragkit.rag.extractive.units import Unit, last_position, passage_of

_GROUNDS_SENTENCES = 3  # a why question's advice brings the whole paragraph before it up to this many sentences


#: a sentence that leans on the one before it for its subject ("This works for about 500,000 years")
_LEANS_BACK = re.compile(r"^(?:This|That|It|These|Those|Such)\s+(?!is\s+because|is\s+why)")


#: a sentence that gives an example of what the one before it says ("For instance: %s for string, …")
_EXAMPLE_OF = re.compile(r"^(?:For (?:instance|example)|E\.g\.|e\.g\.)[,:]?\s")


def sentence_pairs(units: Sequence[Unit], *, leaning: bool = False, examples: bool = False) -> list[Unit]:
    """Each prose sentence joined to the next one of its paragraph, as one unit (its words both
    sentences' words); with ``leaning`` or ``examples``, only to a next one that leans on it for
    its subject ("… the timeout values are calculated relative to that. This works for about
    500,000 years") or, with ``examples``, that gives an example of it ("… placeholders to be
    substituted with format arguments. For instance: %s for string, %d for integer")."""
    out: list[Unit] = []
    for u, v in zip(units, units[1:], strict=False):
        joins = (not (leaning or examples) or leaning and _LEANS_BACK.match(v.text)
                 or examples and _EXAMPLE_OF.match(v.text))
        if (u.kind == v.kind == "prose" and u.rank == v.rank and u.paragraph == v.paragraph
                and v.position == u.position + 1 and joins):
            out.append(replace(u, text=f"{u.text} {v.text}", own=u.own | v.own, near=u.near | v.near,
                               run=(u.text, v.text), leads_code=v.leads_code))
    return out


#: a sentence that opens by giving the reason or the consequence of the one before it
_CONSEQUENCE = re.compile(
    r"^(?:Otherwise|Else|If not|This is because|That is because|That's because|This is why|That is why|"
    r"This means|That means|This way|That way|As a result|Because of this|For this reason|Therefore|"
    r"Thus|Hence|This (?:prevents|avoids|ensures|keeps|protects|guarantees|makes sure))\b"
)
#: words by which a sentence gives a reason itself
_REASON = re.compile(r"\b(?:because|since|so that|in order to|to (?:avoid|prevent|ensure|keep|protect|allow|make sure)|"
                     r"otherwise|the (?:reason|intent|purpose|goal|point) (?:is|was)|due to|as a result|"
                     # "We do not recommend using your work account given you can expose …"
                     r"given\s+(?:that|you|we|they|it|there)|could result in|would result in)\b"
                     # "… very few dependencies and log4j is not one of them, therefore it does not …"
                     r"|,\s*(?:and\s+)?(?:therefore|hence|thus)\b", re.IGNORECASE)


def consequent(u: Unit, units: Sequence[Unit], quoted: set[int]) -> str:
    """For a question that asks why: the sentence after ``u`` in its paragraph, with a space before
    it, when ``u`` gives no reason itself and that sentence opens with one ("It is important for
    the cache to be on the same file system." "Otherwise, uv cannot link files and must copy
    them.") or gives one ("… which lacks authentication, and HTTP is insecure due to …"); ""
    otherwise."""
    if u.kind != "prose" or _REASON.search(u.text):
        return ""
    # its paragraph's next sentence, or the next line's ("Otherwise, …")
    after = _next_sentence(u, units, quoted, next_paragraph=True)
    return f" {after.text}" if after and (_CONSEQUENCE.match(after.text) or _REASON.search(after.text)) else ""


def _next_sentence(u: Unit, units: Sequence[Unit], quoted: set[int], *, next_paragraph: bool) -> Unit | None:
    """The prose sentence right after ``u`` (after the last of a joined run), in its paragraph or,
    with ``next_paragraph``, opening the next one of its section; None when there is none or it
    is quoted already."""
    following = last_position(u) + 1
    paragraphs = (u.paragraph, u.paragraph + 1) if next_paragraph else (u.paragraph,)
    return next((v for v in passage_of(units, u) if v.position == following and v.kind == "prose"
                 and v.paragraph in paragraphs and v.block.section == u.block.section and id(v) not in quoted), None)


#: a sentence that opens by pointing at what the one before it lacks or rules out and says what
#: serves instead ("Note that none of these tools give kernel profile statistics." "For that, the
#: devmem driver should be used.")
_SEQUEL = re.compile(r"^(?:For\s+(?:that|this)(?:\s+purpose)?|To\s+do\s+(?:that|this|so)|Instead|In\s+that\s+case),")


def sequel(u: Unit, units: Sequence[Unit], quoted: set[int]) -> str:
    """The sentence after ``u`` in its paragraph, with a space before it, when it opens by pointing
    back at ``u`` for what to do ("For that, …", "Instead, …"): without it ``u`` says only what
    does not serve; "" otherwise."""
    if u.kind != "prose":
        return ""
    after = _next_sentence(u, units, quoted, next_paragraph=False)
    return f" {after.text}" if after and _SEQUEL.match(after.text) else ""


#: a sentence that advises rather than states ("make sure their main routine is protected …")
_ADVICE = re.compile(r"\b(?:make sure|be sure|ensure|should|must|need to|have to|remember to|always|never|"
                     r"do not|don't|it is (?:important|recommended|advisable))\b", re.IGNORECASE)


def advises(text: str) -> bool:
    """Whether ``text`` advises ("Make sure the region is set to Global", "do not …")."""
    return bool(_ADVICE.search(text))


def grounds(u: Unit, units: Sequence[Unit], quoted: set[int]) -> str:
    """For a question that asks why: the sentence before ``u`` in its section, with a space after
    it, when ``u`` advises without giving a reason ("If you document scripts, make sure their main
    routine is protected …" after "… these will be executed when the build runs."): advice follows
    the fact that motivates it; "" otherwise (or when a consequence after ``u`` gives the reason)."""
    if u.kind != "prose" or _REASON.search(u.text) or not advises(u.text):
        return ""
    before = [v for v in passage_of(units, u) if v.position == u.position - 1 and v.kind == "prose"
              and v.block.section == u.block.section and id(v) not in quoted]
    if not before:
        return ""
    if before[0].paragraph != u.paragraph:  # the paragraph before, when short: the fact and its effect
        paragraph = [v for v in passage_of(units, u) if v.kind == "prose" and v.paragraph == before[0].paragraph]
        if len(paragraph) <= _GROUNDS_SENTENCES and not any(id(v) in quoted for v in paragraph):
            return " ".join(v.text for v in sorted(paragraph, key=lambda v: v.position)) + " "
    return f"{before[0].text} "




def gives_reason(text: str) -> bool:
    """Whether ``text`` gives a reason by its words ("because", "so that", "given you can …")."""
    return _REASON.search(text) is not None


__all__ = ["advises", "consequent", "gives_reason", "grounds", "sentence_pairs", "sequel"]
