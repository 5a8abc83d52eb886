"""Session-scoped real servers for the store tests: a `chroma run` server (PostgreSQL: ../conftest.py).

A server that cannot start fails the tests that need it (with the server's log) instead of
skipping them: CI must really run these backends.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragkit.testing.servers_db import chroma_server


@pytest.fixture(scope="session")
def chroma_http() -> Iterator[tuple[str, int]]:
    """``(host, port)`` of a real chroma server on loopback."""
    try:
        ctx = chroma_server()
        address = ctx.__enter__()
    except Exception as exc:  # noqa: BLE001 - any start failure fails the test loudly
        pytest.fail(f"could not start the chroma server: {exc}", pytrace=False)
    try:
        yield address
    finally:
        ctx.__exit__(None, None, None)
