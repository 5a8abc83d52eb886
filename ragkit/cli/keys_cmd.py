"""`ragkit serve keys list|create|revoke`: the API keys of a server (its state database).

A key is shown once, when it is created; only its SHA-256 hash is stored. Listings show ids,
names, creation, last use and revocation, never a secret. A revoked key is refused by every
worker of a running server from its next request on. The first key is an admin key (it sees every
key's sessions, traces, jobs and uploads); ``create --admin`` makes another.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from ragkit.cli.options import echo_json, index_option, json_option, pipeline_option
from ragkit.cli.serve_support import index_dir as _index_dir
from ragkit.cli.serve_support import missing as _missing

sessions_url_option = click.option("--sessions-url", default=None,
                                   help="The server's state database, if not state.db in the index.")


@contextmanager
def _records(ctx: click.Context, pipeline: str | None, index_dir: str | None, sessions_url: str | None) -> Iterator[Any]:
    parent = ctx.find_object(dict) or {}
    pipeline = pipeline or parent.get("pipeline")
    index_dir = index_dir or parent.get("index_dir")
    sessions_url = sessions_url or parent.get("sessions_url")
    try:
        from ragkit.server.records import Records
        from ragkit.server.settings import ServerSettings
        from ragkit.sessions.db import Database
    except ImportError as exc:
        raise _missing(exc, "ragkit serve keys") from exc
    settings = ServerSettings(index=_index_dir(index_dir, pipeline), pipeline=pipeline, sessions_url=sessions_url)
    db = Database.open(settings.state_url)
    try:
        yield Records(db)
    finally:
        db.close()


def _when(ts: float | None) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M:%S") if ts else "never"


def print_new_key(records: Any, name: str, *, admin: bool, as_json: bool = False) -> None:
    """Create a key and print it (its secret goes to stdout, alone on the first line)."""
    key, record = records.create_key(name, admin=admin)
    if as_json:
        echo_json({**record, "key": key})
    else:
        click.echo(key)
    role = "admin key (sees every key's data)" if record["admin"] else "key"
    click.echo(f"created {role} {record['id']}{' ' + repr(name) if name else ''}: shown once, only its hash is "
               "stored; send it as 'Authorization: Bearer <key>'", err=True)


@click.group()
def keys() -> None:
    """List, create and revoke the server's API keys (never shows a secret but once, at creation).

    \b
    Examples:
      ragkit serve keys create --name alice          # prints the key once
      ragkit serve keys create --name ops --admin    # an admin key: sees every key's data
      ragkit serve keys list                         # id, name, admin, created, last used, revoked
      ragkit serve keys revoke alice                 # by name or id; refused at once by every worker
    """


@keys.command("create")
@pipeline_option
@index_option
@sessions_url_option
@click.option("--name", default="", help="A label: who or what uses the key.")
@click.option("--admin", is_flag=True, help="An admin key sees every key's sessions, traces, jobs and uploads "
              "(the first key is always one).")
@json_option
@click.pass_context
def create(ctx: click.Context, pipeline: str | None, index_dir: str | None, sessions_url: str | None, name: str,
           admin: bool, as_json: bool) -> None:
    """Create an API key; it is printed once, only its hash is stored."""
    with _records(ctx, pipeline, index_dir, sessions_url) as records:
        print_new_key(records, name, admin=admin, as_json=as_json)


@keys.command("list")
@pipeline_option
@index_option
@sessions_url_option
@json_option
@click.pass_context
def list_(ctx: click.Context, pipeline: str | None, index_dir: str | None, sessions_url: str | None,
          as_json: bool) -> None:
    """The keys: id, name, admin, creation, last use, revocation (never a secret)."""
    with _records(ctx, pipeline, index_dir, sessions_url) as records:
        rows = records.keys()
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("no API keys: the server binds loopback only and needs none (create one with "
                   "`ragkit serve keys create`)")
        return
    click.echo(f"{'id':<18} {'name':<16} {'role':<6} {'created':<20} {'last used':<20} status")
    for k in rows:
        status = f"revoked {_when(k['revoked_at'])}" if k["revoked"] else "active"
        click.echo(f"{k['id']:<18} {k['name'][:16]:<16} {'admin' if k['admin'] else 'user':<6} "
                   f"{_when(k['created_at']):<20} {_when(k['last_used_at']):<20} {status}")


@keys.command("revoke")
@click.argument("key")
@pipeline_option
@index_option
@sessions_url_option
@json_option
@click.pass_context
def revoke(ctx: click.Context, key: str, pipeline: str | None, index_dir: str | None, sessions_url: str | None,
           as_json: bool) -> None:
    """Revoke KEY (its id or its name): every worker refuses it from its next request on."""
    with _records(ctx, pipeline, index_dir, sessions_url) as records:
        try:
            record = records.revoke_key(key)
        except LookupError as exc:
            raise click.ClickException(str(exc)) from None
    if as_json:
        echo_json(record)
    else:
        click.echo(f"revoked {record['id']}{' ' + repr(record['name']) if record['name'] else ''}; the data it "
                   "created stays (an admin key sees it)")
