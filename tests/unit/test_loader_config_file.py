"""Commented configuration files (.conf, .ini, .cfg, .properties, .toml): written out with sections
as headings, comment runs as paragraphs without their markers and each setting an item with the
comment that documents it, so an answer quotes a default a comment states, not a line of ``;``
markers and half a sentence; scripts, YAML and prose are no configuration. The files are
invented for the test (a harbour ferry booking server's)."""

from __future__ import annotations

import pytest

from ragkit.loaders.config_file import config_to_markdown, is_config_file
from ragkit.rag.extractive import extractive_answer
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

FERRYD = """;
; ferryd.conf - the harbour ferry booking server
;
; Copy this file to /etc/ferryd/ferryd.conf and edit it; every setting
; below is shown with its default.
;

;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;
;; Network
;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;

[general]
; The port the booking API listens on.  Default: 8080
;port=8080
bindaddr = 0.0.0.0        ; listen on every interface
;pickupdesk = *8          ; Configure the pickup desk extension. (default is *8)
;tideserver = 127.0.0.1\t\t; host[:port] of the tide service.
\t\t\t\t; If no port is given, the tide service uses port 9125.
\t\t\t\t; The tide service is queried every 10 minutes.
;tidetable = spring     ; which tide table to print on tickets:
;                       ; spring, neap or both
motd = "Welcome aboard; mind the gap"  ; shown at login
statusurl=http://status.ferry.example/board#today
; # Tides are read from the tide service.

;; ===== Booking =====
[booking](!)
; How long a seat is held while the passenger pays, in seconds.
; After this the seat goes back on sale.
hold_timeout = 300
;max_party = 12
# Note: the port is 80 for the public board.
; e.g. = is allowed in passenger names
;------------------------------------------
; Refunds are paid to the card used.

# ---- Logging ----
[logging]
level = info
"""


def _written(text: str = FERRYD) -> str:
    return config_to_markdown(text, "ferryd.conf")


def test_sections_are_headings_and_text_before_them_stays_under_the_title():
    out = _written()
    assert out.startswith("# ferryd.conf\n\nferryd.conf - the harbour ferry booking server\n\n"
                          "Copy this file to /etc/ferryd/ferryd.conf and edit it; every setting\n"
                          "below is shown with its default.\n\n")
    assert "\n## [general]\n" in out and "\n## [booking](!)\n" in out and "\n## [logging]\n" in out
    assert config_to_markdown("[[servers]]\nname = north\n", "piers.toml") == (
        "# piers.toml\n\n## [[servers]]\n\n- `name = north`\n")


def test_comment_runs_are_paragraphs_without_their_markers():
    out = _written()
    assert ("\n\nHow long a seat is held while the passenger pays, in seconds.\n"
            "After this the seat goes back on sale.\n\n") in out
    assert "\n\nThe port the booking API listens on.  Default: 8080\n\n- `port=8080`\n" in out
    assert "\n\nRefunds are paid to the card used.\n\n" in out  # a rule ends a paragraph and goes
    assert "----" not in out and ";;" not in out and "\n;" not in out


def test_prose_that_looks_like_a_setting_or_a_heading_stays_prose():
    out = _written()
    assert "\n\nNote: the port is 80 for the public board.\ne.g. = is allowed in passenger names\n\n" in out
    assert "\n\\# Tides are read from the tide service.\n" in out  # escaped: no heading


def test_banners_are_headings():
    out = _written()
    assert "\n\n### Network\n\n## [general]\n" in out  # one comment line between rules
    assert "\n\n### Booking\n\n## [booking](!)\n" in out  # a title between rules of its own
    assert "\n\n### Logging\n\n## [logging]\n" in out


def test_settings_are_items_with_the_comments_that_document_them():
    out = _written()
    assert "\n- `bindaddr = 0.0.0.0`: listen on every interface\n" in out
    assert "\n- `pickupdesk = *8`: Configure the pickup desk extension. (default is *8)\n" in out
    assert ("\n- `tideserver = 127.0.0.1`: host[:port] of the tide service. If no port is given, the tide "
            "service uses port 9125. The tide service is queried every 10 minutes.\n") in out
    assert "\n- `tidetable = spring`: which tide table to print on tickets: spring, neap or both\n" in out
    assert "\n- `hold_timeout = 300`\n- `max_party = 12`\n" in out
    assert "\n- `level = info`\n" in out


def test_a_comment_mark_inside_quotes_or_a_url_is_part_of_the_value():
    out = _written()
    assert '\n- `motd = "Welcome aboard; mind the gap"`: shown at login\n' in out
    assert "\n- `statusurl=http://status.ferry.example/board#today`\n" in out


def test_values_continued_on_the_next_lines_stay_with_their_setting():
    toml = ('# piers\n[[servers]]\nroutes = [\n  "north-south",  # the main line\n  "north-island",\n]\n'
            "# after\nname = 'x'\n")
    assert "\n- `routes = [ \"north-south\", \"north-island\", ]`: the main line\n\nafter\n\n- `name = 'x'`\n" in (
        config_to_markdown(toml, "piers.toml"))
    properties = "# greeting\ngreeting = Welcome aboard the \\\n    harbour ferry\nport=8080\n"
    assert "\n- `greeting = Welcome aboard the harbour ferry`\n- `port=8080`\n" in (
        config_to_markdown(properties, "ferry.properties"))
    setup = "[options]\n# needed\ninstall_requires =\n    tides\n    charts\nzip_safe = false\n"
    assert "\n- `install_requires = tides charts`\n- `zip_safe = false`\n" in config_to_markdown(setup, "setup.cfg")


def test_a_comment_as_deep_as_the_settings_documents_the_next_one():
    gitconfig = "[user]\n\t# who commits\n\tname = Ann\n\t# where replies go\n\temail = ann@harbour.example\n"
    assert config_to_markdown(gitconfig, ".gitconfig") == (
        "# .gitconfig\n\n## [user]\n\nwho commits\n\n- `name = Ann`\n\nwhere replies go\n\n"
        "- `email = ann@harbour.example`\n")


def test_a_backtick_in_a_value_keeps_the_code_span_whole():
    assert "- `` banner = `ferry` ``\n" in config_to_markdown("# x\nbanner = `ferry`\n", "b.ini")


INI = """# Harbour office printer settings
# Edit with care.

[printer]
# the tray that holds ticket stock
tray = 2
; copies of each manifest
copies=1

[network]
host = printer.harbour.example
"""

PROPERTIES = """# Ferry booking service
# Ports and timeouts

booking.port=8080
booking.timeout: 30
# the tide service
tides.url=http://tides.example/api
tides.cache.minutes = 10
"""

TOML = """# Tide service configuration
title = "tides"  # shown in the page header

[service]
# Port the tide service listens on.
port = 9125
# The gauges read, north to south.
stations = [
  "north-pier",
  "south-pier",
]

# One table per gauge.
[[gauges]]
name = "harbour mouth"
"""

SHELL = """#!/bin/sh
# Start the ferry booking server.
# Usage: start.sh [port]
set -e
PORT=${1:-8080}
# wait for the database
if [ -z "$DB" ]; then
  echo "no database" >&2
  exit 1
fi
cd /srv/ferryd
exec ferryd --port "$PORT"
"""

PYTHON = '''# Tide helpers.
# Reads the gauges.
import time

# minutes between readings
WINDOW = 45


def read(gauge):
    # the last reading
    return gauge.height
'''

YAML = """# Ferry booking server
# Ports and timeouts
server:
  port: 8080
  host: 0.0.0.0
  timeout: 30
# the piers served
piers:
  - north
  - south
"""

#: a YAML file whose leaves are mostly "key: value" lines under a few mappings
YAML_LEAVES = "# Ferry booking server\n# Ports\nserver:\n" + "".join(
    f"  # timeout of pier {n}, in seconds\n  pier{n}_timeout: {n * 10}\n" for n in range(12)) + "piers:\n  - north\n"

README = """# Ferry booking server

A small server that books seats on the harbour ferries.

## Install

Run the installer and answer its questions.

## Configure

Edit ferryd.conf; every setting is documented there.
"""

LETTER = """Dear harbour master,

Thank you for the new timetable. The winter ferries leave at six, and the
tide tables you sent are a great help.

Yours sincerely,
Ann
"""


@pytest.mark.parametrize("text", [FERRYD, INI, PROPERTIES, TOML])
def test_commented_configurations_are_told(text: str):
    assert is_config_file(text)


@pytest.mark.parametrize("text", [SHELL, PYTHON, YAML, YAML_LEAVES, README, LETTER, "", "; only\n; comments\n; here\n"])
def test_scripts_yaml_and_prose_are_no_configuration(text: str):
    assert not is_config_file(text)


def test_an_answer_quotes_the_default_a_comment_states():
    text = _written()
    passages = markdown_passages(text, "ferryd.conf")
    answer = extractive_answer("Which port does the tide service use if none is given?", passages)
    assert "9125" in answer
    assert ";" not in answer


@pytest.mark.parametrize("text", [
    "[general\nport = 8080 ; [\n",  # unbalanced brackets
    "routes = [\n  'a',\n",  # an array never closed
    "doc = '''\nnever closed\n",
    "\t; tabs\n\t\tkey\t=\tvalue\t# note\n",
    "no sections at all\njust = text\n",
    "; only\n; comments\n",
    "=\n:\n[]\n[[]]\n;\n#\n//\n\\\n`\n\"\n'\n",
    "key = value \\",
    "",
])
def test_malformed_input_gives_text(text: str):
    out = config_to_markdown(text, "odd.conf")
    assert out.startswith("# odd.conf") and out.endswith("\n")
    is_config_file(text)


def test_an_array_left_open_does_not_swallow_the_file():
    out = config_to_markdown("[a]\nroutes = [\n  'x',\n[b]\nport = 1\n", "odd.toml")
    assert "\n## [b]\n\n- `port = 1`\n" in out


def test_hostile_lines_are_read_in_linear_time():
    for line in (lambda k: ";" * 10 * k, lambda k: "=" * 10 * k, lambda k: "[" * 10 * k, lambda k: " " * 10 * k + "#",
                 lambda k: "key = " + "'" * 10 * k + " #", lambda k: "key = " + '"x ' * 3 * k + "; c",
                 lambda k: "; " + "=" * 10 * k + " x " + "=" * 10 * k, lambda k: "a" * 10 * k + " = 1",
                 lambda k: "; key = " + "a " * 5 * k, lambda k: "key = " + "[" * 10 * k, lambda k: "#" + " x=" * 3 * k):
        assert_linear(lambda text: (is_config_file(text), config_to_markdown(text, "big.conf")),
                      lambda k, line=line: "[general]\n; comment\nport = 1\n" + line(k) + "\n", 100_000)


def test_the_text_loader_writes_out_a_configuration_and_a_sample_of_one(tmp_path):
    from ragkit.loaders.base import loader_name_for
    from ragkit.registry import loaders

    for name in ("ferryd.conf", "ferryd.conf.sample", "ferryd.ini.example"):
        path = tmp_path / name
        path.write_text(FERRYD, encoding="utf-8")
        assert loader_name_for(path) == "text"
        [doc] = loaders.get("text")().load(path, source=name)
        assert doc.metadata["markup"] == "markdown" and doc.metadata["title"] == name
        assert doc.text.startswith(f"# {name}\n") and "\n## [general]\n" in doc.text
    script = tmp_path / "run.conf"
    script.write_text("exec ferryd --port 8080\nexit 0\n", encoding="utf-8")
    [doc] = loaders.get("text")().load(script, source="run.conf")
    assert doc.text == "exec ferryd --port 8080\nexit 0\n" and "markup" not in doc.metadata


def test_lines_naming_values_and_their_meanings_are_a_list():
    text = config_to_markdown("""[booking]
; How seats are offered.  Valid orders include:
;
; fifo - first booked, first boarded (default)
; priority - holders of season tickets first,
;            then everyone else
; random - any order
;order = fifo
; This line - with a dash - is prose.
""", "ferryd.conf")
    assert ("- fifo - first booked, first boarded (default)\n- priority - holders of season tickets first,\n"
            "           then everyone else\n- random - any order\n") in text
    assert "\nThis line - with a dash - is prose.\n" in text
