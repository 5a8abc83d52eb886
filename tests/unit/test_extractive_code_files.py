"""A passage of a program or a configuration file (``model.yml``, ``convert.py``: ``CODE_EXTENSIONS``)
is code, never sentences or list items to quote; its lines still state a value asked for. The files
are written for the test, in the shape of a model card's folder: the card in Markdown, its download
and accuracy settings in YAML."""

from __future__ import annotations

from ragkit.rag.extractive import extractive_answer
from ragkit.rag.passages import Passage

CARD = [
    Passage(1, "models:\n  - name: kelp-net\n\n    launchers:\n      - framework: openvino\n\n    datasets:\n"
               "      - name: HarbourBrainSingleChannel\n        metrics:\n          - type: psnr\n"
               "            reference:\n              mean: 31.5\n",
            {"source": "kelp-net/accuracy-check.yml"}),
    Passage(2, "# kelp-net\n\n## Accuracy\n\nAccuracy metrics are obtained on the Harbour Brain Dataset.\n\n"
               "| Metric | Value |\n|---|---|\n| PSNR (mean) | 31.5 dB |",
            {"source": "kelp-net/README.md", "heading": "kelp-net > Accuracy"}),
]


def test_a_configuration_files_lines_are_not_quoted_as_sentences() -> None:
    answer = extractive_answer("Which dataset were the PSNR figures of kelp-net measured on?", CARD)
    assert "name: kelp-net" not in answer and "Harbour Brain Dataset" in answer, answer


def test_a_configuration_files_line_still_states_a_value() -> None:
    settings = [Passage(1, "server:\n  host: 0.0.0.0\n  # the port the sidecar listens on\n  port: 7411\n",
                        {"source": "sidecar/config.yaml"})]
    answer = extractive_answer("Which port does the sidecar listen on?", settings)
    assert "7411" in answer, answer
