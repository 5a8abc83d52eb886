"""The `ragkit` command. Thin: parses options, calls the library, prints.

This is the only place that turns RagkitError into messages and exit codes. Command modules
import heavy libraries inside their functions, so `ragkit --help` stays fast.
"""

from __future__ import annotations

import logging
import sys

import click

from ragkit.cli import (
    ask_cmd,
    bench_cmd,
    eval_cmd,
    index_cmd,
    models_cmd,
    pipeline_cmd,
    search_cmd,
    serve_cmd,
)


class RagkitGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        from ragkit.errors import RagkitError

        try:
            return super().invoke(ctx)
        except RagkitError as exc:
            click.secho(f"error: {exc}", fg="red", err=True)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        return None


@click.group(cls=RagkitGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only errors.")
@click.version_option(package_name="ragkit")
def cli(verbose: int, quiet: bool) -> None:
    """ragkit: turn a folder of documents into a searchable knowledge base.

    \b
    Quick start:
      ragkit index data/                 # build or update the index in .ragkit/index
      ragkit search "when was it built"  # semantic search over it
      ragkit ask "who founded it?"       # an answer with cited sources (offline by default)
      ragkit chat                        # a conversation over the documents
      ragkit chat --session notes        # ... kept in the index; the same name continues it
      ragkit status                      # what is in the index
      ragkit serve                       # OpenAI-compatible API + web chat on :8000
      ragkit mcp                         # the knowledge base as an MCP server (stdio)
    
    More:
      ragkit pipeline validate my.yaml   # check a pipeline before indexing with it
      ragkit models --provider groq      # models with prices, context windows, capabilities
      ragkit eval --dataset DIR -r dense -r hybrid   # retrieval quality on a BEIR dataset
      ragkit bench --profile quick       # compare vector stores on this machine
    Every command takes --help. Pipelines are YAML files (see pipelines/default.yaml).
    """
    level = logging.ERROR if quiet else (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    for noisy in ("bm25s", "httpx", "sentence_transformers", "transformers", "chromadb"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))
    # a malformed PDF is reported once, with its reason, in the run report; pypdf's own warnings
    # about it (header, EOF marker, xref) are shown only with -v
    logging.getLogger("pypdf").setLevel(level if verbose else logging.ERROR)


cli.add_command(index_cmd.index)
cli.add_command(index_cmd.status)
cli.add_command(search_cmd.search)
cli.add_command(ask_cmd.ask)
cli.add_command(ask_cmd.chat)
cli.add_command(pipeline_cmd.pipeline)
cli.add_command(eval_cmd.eval_)
cli.add_command(bench_cmd.bench)
cli.add_command(serve_cmd.serve)
cli.add_command(serve_cmd.mcp)
cli.add_command(models_cmd.models)


def main() -> None:
    cli(prog_name="ragkit")


if __name__ == "__main__":
    main()
