"""`ragkit pipeline validate|show`."""

from __future__ import annotations

import click

from ragkit.cli.options import echo_json, index_option


@click.group()
def pipeline() -> None:
    """Check and inspect pipeline YAML files."""


@pipeline.command()
@click.argument("file", type=click.Path(dir_okay=False))
def validate(file: str) -> None:
    """Validate FILE: keys, types, `type:` names and component options.

    Errors name the file, the key path (e.g. splitter.chunk_size), the bad value and the
    allowed values. Nothing is loaded or indexed.
    """
    from ragkit.config import load_pipeline

    spec = load_pipeline(file)
    click.echo(
        f"ok: {file} is valid (loaders: defaults{' + ' + ', '.join(spec.loaders) if spec.loaders else ''}; "
        f"splitter: {spec.splitter.type}; embedder: {spec.embedder.type}; store: {spec.store.type}; "
        f"retriever: {spec.retriever.type})"
    )


@pipeline.command()
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@index_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of YAML.")
def show(file: str | None, index_dir: str | None, as_json: bool) -> None:
    """Print the resolved pipeline: defaults filled in (store type and options, embedder model,
    retriever...), ${ENV} interpolated.

    Without FILE: the pipeline `ragkit index`, `search` and `ask` use, i.e. the one the index was
    built with, else the built-in default (the same as pipelines/default.yaml).
    """
    import yaml

    from ragkit.index.reader import resolve_spec

    data = resolve_spec(file, index_dir)[0].to_yaml_dict()
    if as_json:
        echo_json(data)
    else:
        click.echo(yaml.safe_dump(data, sort_keys=False).rstrip())
