"""Options shared by several commands."""

from __future__ import annotations

import json
from typing import Any

import click

pipeline_option = click.option(
    "--pipeline", "-p", type=click.Path(dir_okay=False), default=None,
    help="Pipeline YAML. Default: the one the index was built with, else built-in defaults.",
)
index_option = click.option(
    "--index", "-i", "index_dir", type=click.Path(file_okay=False), default=None,
    help="Index directory. Default: the pipeline's `index:` (.ragkit/index).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON on stdout.")


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))
