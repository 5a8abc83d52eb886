"""Commented YAML configuration (a chart's values.yaml): written out with each key's whole path and
value beside the comments that document it, a top-level section a heading, so a default a
comment states is a sentence the answerer quotes with the key it belongs to. The chart is
invented for the test."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ragkit.loaders.yaml_comments import is_commented_yaml, yaml_to_markdown
from ragkit.rag.extractive import extractive_answer
from ragkit.registry import loaders
from tests.unit.linear_time import assert_linear
from tests.unit.markdown_passages import markdown_passages

VALUES = """## Default values for the ferry booking chart

## Booking desk image
image:
  repository: "harbour/ferryd"
  # Overrides the image tag whose default is the chart appVersion.
  tag: ""

replicaCount: 1  # more than one needs a shared session store

#######################################

## Ingress configuration
ingress:
  enabled: false
  ## Maximal upload size for tide tables (default: 4m - raise it if uploads fail)
  maxBodySize: 4m
  hosts:
    - host: ferry.example
      paths:
        - path: /
  # tls:
  #   - secretName: ferry-tls

## The booking desk's greeting, shown at login
motd: |
  Welcome aboard.
  Mind the gap.
"""


def test_keys_are_items_with_their_paths_and_comments_sections_are_headings() -> None:
    text = yaml_to_markdown(VALUES, "values.yaml")
    assert text.startswith("# values.yaml\n\nDefault values for the ferry booking chart\n\n## image\n\n"
                           "Booking desk image\n\n- `image.repository`: Default: `\"harbour/ferryd\"`\n"
                           "- `image.tag`: Overrides the image tag whose default is the chart appVersion. Default: `\"\"`\n")
    assert "- `replicaCount`: more than one needs a shared session store. Default: `1`\n" in text
    assert "## ingress\n\nIngress configuration\n\n- `ingress.enabled`: Default: `false`\n" in text
    assert ("- `ingress.maxBodySize`: Maximal upload size for tide tables (default: 4m - raise it if "
            "uploads fail). Default: `4m`\n") in text
    assert "- `ingress.hosts`\n- `ingress.hosts[].host`: Default: `ferry.example`\n" in text
    assert "- `ingress.hosts[].paths[].path`: Default: `/`" in text
    other = yaml_to_markdown(VALUES, "ferryd.yaml")  # another file's values are no defaults
    assert "- `ingress.maxBodySize: 4m`: Maximal upload size" in other and "Default: `" not in other
    assert "- `motd`: The booking desk's greeting, shown at login\n\n```yaml\n  Welcome aboard.\n  Mind the gap.\n```" in text
    assert "####" not in text  # the decorative rule went


@pytest.mark.parametrize(("text", "commented"), [
    (VALUES, True),
    ("image:\n  repository: ferryd\n  tag: latest\nreplicaCount: 1\n", False),  # no comments: as it is
    ("# a list\n- one\n- two\n# more\n- three\n", False),  # no keys
    ("# settings\nimage:\n\trepository: ferryd\n# tag\n\ttag: x\nreplicas: 1\n", False),  # tabs: not YAML
    # a licence above the first key documents no key: a model's description file stays as it is
    ("# Copyright 2031 The Harbour Authors\n#\n# Licensed under the Tide Licence.\n#\n"
     "description: >-\n  Counts ferries.\ntask_type: detection\nframework: onnx\nlicense: tide\n", False),
])
def test_commented_yaml_is_told(text: str, commented: bool) -> None:
    assert is_commented_yaml(text) is commented


def test_the_text_loader_writes_out_a_commented_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "values.yaml"
    path.write_text(VALUES, encoding="utf-8")
    [doc] = loaders.get("text")().load(path, source="chart/values.yaml")
    assert doc.metadata["markup"] == "markdown" and doc.metadata["title"] == "values.yaml"
    assert "- `ingress.maxBodySize`: Maximal upload size" in doc.text


def test_an_answer_quotes_the_comment_with_its_key() -> None:
    passages = markdown_passages(yaml_to_markdown(VALUES, "values.yaml"), "chart/values.yaml", chunk_size=300)
    answer = extractive_answer("What is the maximal upload size for tide tables through the ingress by default?", passages)
    assert "4m" in answer and "##" not in answer


@pytest.mark.parametrize("make", [
    lambda k: "# c\n" + "a:\n" + "  " * k + "b: 1\n",
    lambda k: "# c\nkey: " + "#" * 10 * k + "\nx: 1\ny: 2\n",
    lambda k: "# c\nkey: " + '"' * 10 * k + "\nx: 1\ny: 2\n",
    lambda k: "# c\n" + "".join(f"{'  ' * i}k{i}:\n" for i in range(k // 33)),
    lambda k: "# c\nk: |\n" + "  line\n" * 2 * k,
    lambda k: "#" * 10 * k + "\na: 1\nb: 2\nc: 3\n",
])
def test_hostile_yaml_is_written_out_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(lambda text: (yaml_to_markdown(text, "values.yaml"), is_commented_yaml(text)), make, 100_000)
