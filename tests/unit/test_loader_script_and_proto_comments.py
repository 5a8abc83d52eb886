"""JavaScript's and TypeScript's JSDoc/TSDoc comments and a .proto file's comments, written out
as Markdown by ``ragkit.loaders.doc_comments``: invented sources with the shapes of a library's
module and an API's definitions."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ragkit.config import SourcesSpec
from ragkit.index.sources import discover, make_roots
from ragkit.loaders.assets import is_asset
from ragkit.loaders.base import loader_name_for
from ragkit.loaders.doc_comments import doc_comments_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

JS = r'''/* Ferry timetables. (c) 2031 The Harbour authors. */
import { Zone } from "./zone.js";

const QUOTE = /['"{]/g; // a regular expression with a quote and a brace in it
const NOTE = `/** not a comment ${ { pier: 1 }.pier } */`;

/**
 * A sailing between two piers. Sailings are immutable.
 * @private
 */
export default class Sailing {
  /**
   * Move the sailing to another pier's clock. By default the departure instant stays the same.
   * @param {string|Zone} [zone='local'] - the pier's zone, as a name or a {@link Zone}
   * @param {Object} opts - options
   * @param {boolean} [opts.keepBoardingTime=false] - If true, keep the boarding time on the
   *   clock face and move the instant instead.
   * @returns {Sailing} a new sailing
   * @throws {RangeError} when the zone is unknown
   * @example sailing.atPier("Harbour/North", { keepBoardingTime: true })
   */
  atPier(zone, { keepBoardingTime = false } = {}) {
    return divide(1, 2) / 2;
  }

  /**
   * Round trips longer than 18 hours are not sailings; they return null.
   * @example <caption>A night crossing</caption>
   * Sailing.roundTrip(north, south).hours //=> 9
   * @example
   * ```js
   * Sailing.roundTrip(a, b)
   * ```
   */
  static roundTrip(from, to) {
    return null;
  }
}
'''

TS = '''/**
 * Options of a timetable.
 */
export interface TimetableOptions {
  /**
   * How many sailings a page lists.
   * @defaultValue 25
   */
  pageSize?: number;
}
'''

PROTO = '''// Copyright 2031 The Harbour authors.
// Licensed under the MIT licence.

syntax = "proto3";

package harbour.ferry.v1;

// A sailing between two piers.
message Sailing {
  // How long boarding stays open before departure, in minutes. Defaults to 15 and
  // can't be more than 90.
  int32 boarding_window = 1;
  string pier = 2; // the pier's short name
  // (-- api-linter: core::0140::prepositions=disabled
  //     aip.dev/not-precedent: kept for old clients. --)
  // The sailing's vessel, as its registry number.
  string vessel = 3;
}

// What happens when two sailings overlap.
enum OverlapPolicy {
  OVERLAP_POLICY_UNSPECIFIED = 0;
  // Cancel the later sailing. This is the default.
  OVERLAP_POLICY_CANCEL_LATER = 1;
}

service FerryService {
  // Cancels a sailing. Cancelling a sailing that already left returns success.
  rpc CancelSailing (CancelSailingRequest) returns (CancelSailingResponse) {}
}
'''


def written(source: str, name: str, suffix: str) -> str:
    text = doc_comments_to_markdown(source, name, suffix)
    assert text is not None
    return text


def test_jsdoc_parameters_types_defaults_and_examples() -> None:
    text = written(JS, "sailing", ".js")
    assert "## export default class Sailing\n\nA sailing between two piers. Sailings are immutable.\n" in text
    assert "### Sailing.atPier(zone, { keepBoardingTime = false } = {})\n" in text  # the parameter's braces
    assert ("- Parameter `zone` (`string|Zone`, default `'local'`): the pier's zone, as a name or a `Zone`\n"
            "- Parameter `opts` (`Object`): options\n"
            "- Parameter `opts.keepBoardingTime` (`boolean`, default `false`): If true, keep the boarding time "
            "on the clock face and move the instant instead.\n"
            "- Returns `Sailing`: a new sailing\n"
            "- Throws `RangeError`: when the zone is unknown\n") in text
    assert 'Example:\n\n```javascript\nsailing.atPier("Harbour/North", { keepBoardingTime: true })\n```' in text
    assert "### static Sailing.roundTrip(from, to)\n\nRound trips longer than 18 hours are not sailings" in text
    assert "Example: A night crossing\n\n```javascript\nSailing.roundTrip(north, south).hours //=> 9\n```" in text
    assert "```js\nSailing.roundTrip(a, b)\n```" in text  # a TSDoc example already fenced
    assert "@private" not in text and "{@link" not in text and "@param" not in text


def test_strings_templates_and_regular_expressions_are_code() -> None:
    text = written(JS, "sailing", ".js")
    # the quote and brace in the regular expression, and the comment in the template, open nothing
    assert "const NOTE = `/** not a comment ${ { pier: 1 }.pier } */`;" in text
    assert text.count("## export default class Sailing") == 1 and "### Sailing.atPier" in text
    assert "return divide(1, 2) / 2;" in text  # a division, not a regular expression


def test_typescript_interfaces_and_tsdoc() -> None:
    text = written(TS, "timetable", ".ts")
    assert "## export interface TimetableOptions\n\nOptions of a timetable.\n" in text
    assert "### TimetableOptions.pageSize?: number\n\nHow many sailings a page lists.\n\n- Default: 25\n" in text


def test_proto_comments_document_the_declaration_below_them() -> None:
    text = written(PROTO, "ferry", ".proto")
    assert "## message Sailing\n\nA sailing between two piers.\n" in text
    assert ("### int32 Sailing.boarding_window = 1\n\nHow long boarding stays open before departure, in minutes. "
            "Defaults to 15 and\ncan't be more than 90.\n") in text
    assert "### string Sailing.vessel = 3\n\nThe sailing's vessel, as its registry number.\n" in text
    assert "api-linter" not in text.split("```protobuf\n  string vessel")[0].split("### string Sailing.vessel")[1]
    assert "### OverlapPolicy.OVERLAP_POLICY_CANCEL_LATER = 1\n\nCancel the later sailing. This is the default.\n" in text
    assert "### rpc FerryService.CancelSailing (CancelSailingRequest) returns (CancelSailingResponse)\n" in text
    assert "```protobuf\n// Copyright 2031 The Harbour authors." in text  # a detached comment stays code
    assert "string pier = 2; // the pier's short name" in text


def test_scripts_are_read_unless_they_are_a_sites(tmp_path: Path) -> None:
    for name in ("src/sailing.js", "lib/zones/pier.mjs", "index.cjs"):
        assert not is_asset(name), name
    for name in ("docs/_static/jquery.js", "site/assets/app.js", "dist/ferry.js", "ferry.min.js",
                 "node_modules/x/index.js", "theme/js/menu.js"):
        assert is_asset(name), name
    assert loader_name_for(Path("sailing.ts")) == "text" and loader_name_for(Path("ferry.proto")) == "text"
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "sailing.js").write_text(JS, encoding="utf-8")
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "menu.js").write_text("var a = 1;\n", encoding="utf-8")
    found = sorted(f.source for f in discover(make_roots([tmp_path]), SourcesSpec(), base=tmp_path))
    assert found == ["src/sailing.js"]
    [doc] = loaders.get("text")().load(tmp_path / "src" / "sailing.js", source="src/sailing.js")
    assert doc.metadata["markup"] == "markdown" and doc.text.startswith("# sailing\n")


@pytest.mark.parametrize(("source", "suffix"), [
    (JS, ".js"), (PROTO, ".proto")])
def test_an_answer_quotes_the_comment_that_states_it(source: str, suffix: str) -> None:
    name = f"sailing{suffix}"
    passages = markdown_passages(written(source, "sailing", suffix), name)
    question, fact = {
        ".js": ("Which option keeps the boarding time on the clock face when a sailing moves to another pier?",
                "keepBoardingTime"),
        ".proto": ("How long does boarding stay open before a sailing departs by default?", "15"),
    }[suffix]
    answer = extractive_answer(question, passages)
    assert fact in answer and "//" not in answer.split("[")[0]


@pytest.mark.parametrize("make", [
    lambda k: "/** Doc. */\nf(" + "/(" * 3 * k,
    lambda k: "/** Doc. */\n" + "`${" * k,
    lambda k: "/** Doc. */\n" + "`" * (5 * k + 1),
    lambda k: "/** Doc. */\nx = " + "/[" * 3 * k,
    lambda k: "/** Doc. */\n" + "'" * (5 * k + 1),
    lambda k: "/** " + "@example\n" * k + "*/ function f() {}",
    lambda k: "/** " + "@param {" * k + "*/ function f() {}",
    lambda k: "// Doc.\n" * k + "message M {}\n",
    lambda k: "// Doc.\nmessage M {\n" + "  // (--\n" * k + "  int32 x = 1;\n}\n",
])
def test_hostile_scripts_and_protos_are_written_out_in_linear_time(make: Callable[[int], str]) -> None:
    for suffix in (".js", ".ts", ".proto"):
        assert_linear(lambda source, suffix=suffix: doc_comments_to_markdown(source, "hostile", suffix), make, 100_000)
