"""Session-scoped PostgreSQL (with pgvector) shared by the store and session-store tests.

A server that cannot start fails the tests that need it (with the server's log) instead of
skipping them: CI must really run these backends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragkit.testing.servers_db import postgres_server


@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """DSN of a throwaway PostgreSQL with the vector extension."""
    try:
        ctx = postgres_server()
        dsn = ctx.__enter__()
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"could not start PostgreSQL with pgvector: {exc}", pytrace=False)
    try:
        yield dsn
    finally:
        ctx.__exit__(None, None, None)
