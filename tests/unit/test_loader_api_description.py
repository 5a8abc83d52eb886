"""An API description in YAML (OpenAPI, Swagger, AsyncAPI) is read as documentation: written out as
the JSON loader writes a record, marked Markdown so its chunks carry heading paths, and answered
from; any other YAML file stays configuration, read as text and never quoted. Each file is written
for the test, in the shape of a generated OpenAPI document whose every answer was refused."""

from __future__ import annotations

from pathlib import Path

from ragkit.loaders.text import TextLoader
from ragkit.rag.extractive import REFUSAL, extractive_answer
from ragkit.rag.passages import Passage

TIDES_API = """\
components:
  schemas:
    tides.v1.gauge:
      type: object
      properties:
        priority:
          type: integer
          description: The relative importance of the gauge. Can be an integer from 0 to 99, and the default
            is 10. The lowest number represents the most important gauge.
info:
  title: Harbour - Tides
  version: 1.0.0
openapi: 3.0.1
paths:
  /v1/Gauges:
    get:
      summary: List the gauges.
"""


def _load(tmp_path: Path, name: str, text: str) -> tuple[str, dict]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    (doc,) = TextLoader().load(path, source=name)
    return doc.text, dict(doc.metadata)


def test_an_openapi_document_is_written_out_as_documentation(tmp_path: Path) -> None:
    text, meta = _load(tmp_path, "harbour_tides_v1.yaml", TIDES_API)
    assert meta["markup"] == "markdown" and meta["title"] == "Harbour - Tides"
    lines = text.splitlines()
    description = ("- description: The relative importance of the gauge. Can be an integer from 0 to 99, and the "
                   "default is 10. The lowest number represents the most important gauge.")  # its two lines joined
    assert lines.index(description) > lines.index("###### priority") > lines.index("#### tides.v1.gauge")
    assert "- get: summary: List the gauges." in lines  # a small object of short values on its line


def test_its_descriptions_answer_and_a_configuration_file_is_still_code(tmp_path: Path) -> None:
    """Read as text, the description was one code block of a ``.yaml`` file and every answer was
    refused. A passage of such a file that carries a heading path (its loader wrote it out as a
    document) is read as sentences; one without is code, as a compose file's lines are."""
    question = "Which gauge priority is treated as the most important, the highest number or the lowest?"
    passage = ("###### Priority\n\n- in: query\n- schema: type: integer\n\ndescription: The relative importance of "
               "the gauge. Can be an integer from 0 to 99, inclusive, and the default is 10. The lowest number "
               "represents the most important gauge.")
    heading = "paths > /v1/Stations/{StationSid}/Gauges > post > parameters > Priority"
    answer = extractive_answer(question, [Passage(1, passage, {"source": "tides.yaml", "heading": heading})])
    assert "The lowest number represents the most important gauge." in answer
    assert extractive_answer(question, [Passage(1, passage, {"source": "tides.yaml"})]) == REFUSAL


def test_other_yaml_anchors_and_broken_yaml_are_read_as_text(tmp_path: Path) -> None:
    compose = "services:\n  web:\n    image: harbour/tides:1.0\n"
    assert _load(tmp_path, "compose.yaml", compose) == (compose, {"source": "compose.yaml", "mime": "text/plain",
                                                                   "title": "compose"})
    anchored = "openapi: 3.0.1\nx-base: &base\n  type: string\npaths:\n  /a:\n    get: *base\n"
    assert _load(tmp_path, "anchored.yaml", anchored)[0] == anchored  # aliases could expand without bound
    laughs = "openapi: 3.0.1\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    assert _load(tmp_path, "laughs.yaml", laughs)[0] == laughs
    broken = "openapi: 3.0.1\npaths: [unclosed\n"
    assert _load(tmp_path, "broken.yml", broken)[0] == broken
