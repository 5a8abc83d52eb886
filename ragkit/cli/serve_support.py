"""What `ragkit serve`, `ragkit serve keys` and `ragkit mcp` share: the index they serve and the
error for a missing ``ragkit[server]`` extra."""

from __future__ import annotations


def missing(exc: ImportError, what: str) -> Exception:
    from ragkit.errors import MissingDependencyError

    name = (exc.name or "").split(".")[0]
    if not name or name == "ragkit":
        return exc
    return MissingDependencyError(name, "server", what)


def index_dir(index_dir: str | None, pipeline: str | None) -> str:
    if index_dir is not None:
        return index_dir
    from ragkit.index.reader import resolve_spec

    return str(resolve_spec(pipeline, None)[1])
