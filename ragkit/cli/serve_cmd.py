"""`ragkit serve` (the OpenAI-compatible knowledge-base server) and `ragkit mcp` (the MCP server)."""

from __future__ import annotations

import logging
import os
from typing import Any

import click

from ragkit.cli.options import index_option, pipeline_option
from ragkit.cli.serve_support import index_dir as _index_dir
from ragkit.cli.serve_support import missing as _missing

log = logging.getLogger(__name__)


def _provider_option(values: tuple[str, ...], hint: str = "--provider-option") -> dict[str, Any]:
    import yaml

    options: dict[str, Any] = {}
    for raw in values:
        key, sep, value = raw.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {raw!r}", param_hint=hint)
        options[key.strip()] = yaml.safe_load(value)
    return options


def _tool_options(values: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``--tool-option NAME.KEY=VALUE`` (VALUE read as YAML: ``roots=[docs, notes]``), by tool."""
    options: dict[str, dict[str, Any]] = {}
    for name_key, value in _provider_option(values, "--tool-option").items():
        name, dot, key = name_key.partition(".")
        if not dot or not name or not key:
            raise click.BadParameter(f"expected NAME.KEY=VALUE, e.g. search_files.roots=[docs], got {name_key!r}",
                                     param_hint="--tool-option")
        options.setdefault(name, {})[key] = value
    return options


allowed_host_option = click.option(
    "--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
    help="Also answer requests for this Host name (repeatable; '*.example.org' for subdomains, '*' for any). "
         "Default: loopback names and the bind address; any other name gets 421 (DNS rebinding protection).")


@click.group(invoke_without_command=True)
@pipeline_option
@index_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Anything but loopback needs an API key (ragkit serve keys create).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64), help="Worker processes.")
@click.option("--provider", default="local", show_default=True,
              help="LLM provider (a registry name: local, openai, ollama, anthropic, cohere, ...).")
@click.option("--model", "-m", default=None, help="Model name for the provider.")
@click.option("--base-url", default=None, help="Endpoint for OpenAI-compatible providers.")
@click.option("--provider-option", "provider_options", multiple=True, metavar="KEY=VALUE",
              help="Extra provider argument (repeatable), e.g. --provider-option max_sentences=2.")
@click.option("--served-model", default="ragkit", show_default=True,
              help="The model name clients send (listed by GET /v1/models).")
@click.option("--sessions-url", default=None,
              help="Sessions/traces database: sqlite:///PATH or postgresql://... Default: state.db in the index.")
@click.option("--cors-origin", "cors_origins", multiple=True,
              help="Allow browser requests from this origin (repeatable). Default: none (CORS closed; pages of "
                   "other sites can neither read nor change anything).")
@allowed_host_option
@click.option("--max-body-kb", default=1000, show_default=True, type=click.IntRange(1), help="Request body limit.")
@click.option("--max-upload-mb", default=50, show_default=True, type=click.IntRange(1), help="Upload size limit.")
@click.option("--session-wait", default=60.0, show_default=True, type=click.FloatRange(0),
              help="Seconds a turn waits while another turn holds its session, before 429.")
@click.option("--citations", type=click.Choice(["field", "inline"]), default="field", show_default=True,
              help="Where answers carry their sources: the 'citations' extension field, or also a short "
                   "numbered Sources block at the end of the text (for clients that drop extension fields). "
                   "A request's 'citations' field overrides it.")
@click.option("--tool", "tools", multiple=True, metavar="NAME",
              help="A server-side tool the agent may call beside the knowledge base (repeatable), by registry "
                   "name: calculator, current_time, read_file, search_files, or a plugin's.")
@click.option("--tool-option", "tool_options", multiple=True, metavar="NAME.KEY=VALUE",
              help="An option of a --tool (repeatable; VALUE is YAML), e.g. --tool-option search_files.roots=[docs].")
@click.option("--create-key", is_flag=True, help="Create an API key, print it once, exit (as `ragkit serve keys create`).")
@click.option("--key-name", default="", help="A label for the key made by --create-key.")
@click.pass_context
def serve(ctx: click.Context, pipeline: str | None, index_dir: str | None, host: str, port: int, workers: int,
          provider: str, model: str | None, base_url: str | None, provider_options: tuple[str, ...],
          served_model: str, sessions_url: str | None, cors_origins: tuple[str, ...], allowed_hosts: tuple[str, ...],
          max_body_kb: int, max_upload_mb: int, session_wait: float, citations: str, tools: tuple[str, ...],
          tool_options: tuple[str, ...], create_key: bool, key_name: str) -> None:
    """Serve the knowledge base: an OpenAI-compatible API, sessions, traces, ingest and a web chat.

    \b
    Endpoints: POST /v1/chat/completions, POST /v1/completions, POST /v1/embeddings,
    GET /v1/models, POST /chat, /sessions (and /session/start, /session/end, /session/ID),
    /traces, POST /search, POST /documents, GET /jobs/ID, GET /documents, /healthz, /readyz;
    the chat page is at /. Needs: pip install 'ragkit[server]'.

    \b
    Safe by default: loopback only until an API key exists; other Host names get 421; pages of
    other sites cannot change anything (a POST must be JSON or carry X-Ragkit-Client or
    Authorization, and its Origin must be this server or a --cors-origin); each key sees only
    its own sessions, traces, jobs and uploads (an admin key sees all).

    \b
    Examples:
      ragkit serve                                   # http://127.0.0.1:8000, local provider
      ragkit serve keys create --name alice          # then send Authorization: Bearer rk-...
      ragkit serve keys list                         # names, creation, last use (never the secret)
      ragkit serve --host 0.0.0.0 --allowed-host rag.example.org --workers 4 --provider openai
      ragkit serve --provider openai --tool calculator --tool search_files --tool-option search_files.roots=[docs]
    """
    if ctx.invoked_subcommand is not None:
        if create_key:
            raise click.UsageError("--create-key is an option of `ragkit serve` itself; use `ragkit serve keys create`")
        ctx.obj = {"pipeline": pipeline, "index_dir": index_dir, "sessions_url": sessions_url}
        return
    try:
        import uvicorn  # noqa: F401 - the extra's check: ragkit.server.workers runs it

        from ragkit.server.records import Records
        from ragkit.server.settings import ENV, ServerSettings
        from ragkit.server.workers import run as run_workers
        from ragkit.sessions.db import Database
    except ImportError as exc:
        raise _missing(exc, "ragkit serve") from exc

    settings = ServerSettings(
        index=_index_dir(index_dir, pipeline), pipeline=pipeline, provider=provider, model=model,
        base_url=base_url, provider_options=_provider_option(provider_options), served_model=served_model,
        sessions_url=sessions_url, cors_origins=list(cors_origins), max_body_bytes=max_body_kb * 1024,
        max_upload_bytes=max_upload_mb * 1024 * 1024, session_lock_wait=session_wait, host=host,
        allowed_hosts=list(allowed_hosts), citations=citations, tools=list(tools),
        tool_options=_tool_options(tool_options),
    )
    settings.built_tools()  # an unknown tool or a bad option fails here, before any worker starts
    db = Database.open(settings.state_url)
    try:
        records = Records(db)
        if create_key:
            from ragkit.cli.keys_cmd import print_new_key

            print_new_key(records, key_name, admin=False)
            return
        has_keys = records.has_keys()
    finally:
        db.close()
    _refuse_open_bind(host, has_keys)
    from ragkit.registry import providers

    providers.get(provider)  # an unknown name fails here, with suggestions
    os.environ[ENV] = settings.to_env()
    click.echo(f"ragkit serve: http://{host}:{port}/ (index {settings.index_dir}, provider {provider}, "
               f"{workers} worker{'s' if workers > 1 else ''}, API keys {'required' if has_keys else 'off'}"
               f"{', tools ' + ', '.join(tools) if tools else ''})", err=True)
    level = logging.getLogger().getEffectiveLevel()
    run_workers(host=host, port=port, workers=workers, log_level=logging.getLevelName(max(level, logging.INFO)).lower(),
                access_log=level <= logging.INFO)


@click.command()
@pipeline_option
@index_option
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio (an agent starts `ragkit mcp`) or streamable HTTP.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="With --transport http. Anything but loopback needs an API key (ragkit serve keys create).")
@click.option("--port", default=8001, show_default=True, type=click.IntRange(0, 65535), help="With --transport http.")
@click.option("--provider", default="local", show_default=True, help="LLM provider for the `ask` tool.")
@click.option("--model", "-m", default=None, help="Model name for the provider.")
@click.option("--sessions-url", default=None,
              help="With --transport http: the state database holding the API keys, as `ragkit serve "
                   "--sessions-url`. Default: state.db in the index.")
@allowed_host_option
def mcp(pipeline: str | None, index_dir: str | None, transport: str, host: str, port: int, provider: str,
        model: str | None, sessions_url: str | None, allowed_hosts: tuple[str, ...]) -> None:
    """Serve the knowledge base over MCP: tools search_knowledge_base and ask, documents as resources.

    \b
    Over HTTP it checks what `ragkit serve` checks: once the index has an API key, every request
    needs 'Authorization: Bearer <key>', and each key sees only its own uploaded documents
    besides the indexed folders (an admin key sees all). Over stdio the caller is the local user.

    \b
    Examples:
      ragkit mcp --index .ragkit/index                 # stdio, for an agent's MCP config
      ragkit mcp --transport http --port 8001          # http://127.0.0.1:8001/mcp
    """
    from ragkit.errors import ConfigError

    try:
        from ragkit.mcp import build_server
        from ragkit.server.settings import ServerSettings
    except ImportError as exc:
        raise _missing(exc, "ragkit mcp") from exc
    index = _index_dir(index_dir, pipeline)
    state_url = ServerSettings(index=index, pipeline=pipeline, sessions_url=sessions_url).state_url
    if transport == "http":
        _refuse_open_bind(host, _has_keys(state_url))
    elif sessions_url:
        raise ConfigError("--sessions-url is for --transport http (over stdio the caller is the local user)")
    server = build_server(index=index, pipeline=pipeline, provider=provider, model=model)
    server.serve(transport=transport, host=host, port=port, allowed_hosts=list(allowed_hosts), state_url=state_url)


def _has_keys(state_url: str) -> bool:
    from ragkit.server.records import Records
    from ragkit.sessions.db import Database

    db = Database.open(state_url)
    try:
        return Records(db).has_keys()
    finally:
        db.close()


def _refuse_open_bind(host: str, has_keys: bool) -> None:
    """A server without API keys binds loopback only (`ragkit serve` and `ragkit mcp` alike)."""
    from ragkit.errors import ConfigError
    from ragkit.server.settings import is_loopback

    if not has_keys and not is_loopback(host):
        raise ConfigError(
            f"refusing to bind {host} without an API key: anyone on the network could use the server; "
            "create one with `ragkit serve keys create`, or bind 127.0.0.1"
        )


def _add_keys() -> None:
    from ragkit.cli.keys_cmd import keys

    serve.add_command(keys)


_add_keys()
