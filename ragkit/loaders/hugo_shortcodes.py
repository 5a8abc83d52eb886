"""Hugo's shortcodes in Markdown (``{{< figure src="a.png" title="Cluster settings" >}}``,
``{{% alert title="Warning" %}}`` … ``{{% /alert %}}``, ``{{<required>}}``) read as the text a
page shows of them, outside fenced code and code spans:

- a closing tag (``{{< /hint >}}``) leaves nothing, the text between the tags stays;
- a tag with named parameters shows the ones that are text (``title``, ``caption``, ``name``,
  ``label``, ``alt``, ``text``, ``header``, ``summary``), and nothing of the others (``src``,
  ``style``, ``color``, ``url``);
- a tag with positional parameters shows the quoted ones that are words (``{{< collapsible
  "Golang" >}}``), not a path or address (``{{< relref "statuses.md" >}}``);
- a tag with no parameters inside a line is a badge or a value the site fills in, and shows its
  name (``### `account` {{%nullable%}}`` reads "account nullable"); alone on its line it draws
  generated content (``{{< authentication-providers >}}``) and leaves nothing;
- an escaped shortcode (``{{</* figure */>}}``, a page about Hugo) shows as the tag it writes.
"""

from __future__ import annotations

import re

from ragkit.loaders.markdown_html import code_spans, fenced_lines

#: a shortcode tag: ``{{<`` or ``{{%``, an optional ``/`` (a closing tag), the name, the
#: parameters, an optional ``/`` (self-closing) and the matching ``>}}`` or ``%}}``
_TAG = re.compile(r"\{\{([<%])[ \t]*(/?)[ \t]*([A-Za-z_][\w.-]{0,80})((?:[^{}\n\"]|\"[^\"\n]{0,2000}\"){0,4000}?)"
                  r"[ \t]*/?[ \t]*([>%])\}\}")
#: an escaped tag, ``{{</* figure */>}}``, which a page shows as the tag (no brace inside: a scan
#: stops at the next tag), or a tag
_ESCAPED_OR_TAG = re.compile(r"\{\{(?P<open>[<%])/\*(?P<inside>[^{}\n]{0,4000}?)\*/(?P<close>[>%])\}\}|" + _TAG.pattern)
#: a parameter: ``name="value"``, ``name=value``, ``"value"`` or ``value``
_PARAM = re.compile(r"(?:([A-Za-z_][\w-]*)[ \t]*=[ \t]*)?(?:\"([^\"]*)\"|([^\s\"]+))")
#: named parameters whose value a page shows as text
_TEXT_PARAMS = frozenset({"title", "caption", "name", "label", "alt", "text", "header", "summary"})
#: a positional value that is a path, an address or a file, not words
_PATH = re.compile(r"[/#\\]|^\w+:|\.[A-Za-z][A-Za-z0-9]{0,4}$")


def render_shortcodes(text: str) -> str:
    """``text`` with Hugo's shortcodes read as the module says."""
    if "{{<" not in text and "{{%" not in text:
        return text
    out: list[str] = []
    for line, code in fenced_lines(text):
        if not code and ("{{<" in line or "{{%" in line):
            line = _render_line(line)
        out.append(line)
    return "".join(out)


def _render_line(line: str) -> str:
    """One line's shortcodes read, its code spans left as written."""
    body = line.rstrip("\r\n")
    end = line[len(body):]
    alone = bool(_TAG.fullmatch(body.strip()))
    pieces: list[str] = []
    last = 0
    for begin, stop in code_spans(body):
        pieces.append(_render_text(body[last:begin], alone))
        pieces.append(body[begin:stop])
        last = stop
    pieces.append(_render_text(body[last:], alone))
    rendered = "".join(pieces)
    if alone and not rendered.strip():
        return end  # a tag alone on its line leaves an empty line, not one of spaces
    return rendered + end


def _render_text(text: str, alone: bool) -> str:
    return _ESCAPED_OR_TAG.sub(lambda m: _shown(m, alone), text)


def _shown(match: re.Match[str], alone: bool) -> str:
    """What a page shows of one shortcode tag, or of an escaped one: the tag it writes."""
    if match.group("inside") is not None:
        return "{{" + match.group("open") + match.group("inside") + match.group("close") + "}}"
    opener, closing, name, params, closer = match.groups()[3:]
    if (opener == "<") != (closer == ">"):
        return match.group(0)  # "{{< … %}}": not a shortcode
    if closing:
        return ""
    found = _PARAM.findall(params)
    if not found:
        return "" if alone else name.replace("-", " ").replace("_", " ")
    shown = [quoted or bare for key, quoted, bare in found if key.lower() in _TEXT_PARAMS] if any(
        key for key, _, _ in found) else [quoted for _, quoted, _ in found if quoted and not _PATH.search(quoted)]
    return " ".join(w.strip() for w in shown if w.strip())
