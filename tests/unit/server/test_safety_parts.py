"""Fast checks of the server's safety parts that need no server process: the Host rule, the
cross-site rule, path-free messages, full-disk detection, surrogate detection, all-or-nothing upload
batches, API keys (ids, admin, revocation, an older state.db migrated) and session owners."""

from __future__ import annotations

import errno
import sqlite3
import stat
from pathlib import Path

import pytest

from ragkit.server.errors import disk_full, without_paths
from ragkit.server.guard import HostRule, build_guard, split_host
from ragkit.server.ownership import bad_text
from ragkit.server.records import LOCAL, Principal, Records
from ragkit.server.uploads import UploadBatch, clashes
from ragkit.sessions.db import Database
from ragkit.sessions.sql import SQLSessionStore


@pytest.mark.parametrize("value, name", [("localhost:8000", "localhost"), ("[::1]:8000", "::1"), ("::1", "::1"),
                                         ("Example.ORG.", "example.org"), ("127.0.0.1", "127.0.0.1")])
def test_split_host(value: str, name: str) -> None:
    assert split_host(value) == name


def test_host_rule_defaults_and_additions() -> None:
    rule = HostRule.build("127.0.0.1", ["rag.example.org", "*.corp.example"])
    for ok in ("localhost:8000", "127.0.0.1:8000", "[::1]:80", "app.localhost", "rag.example.org",
               "a.corp.example", "b.a.corp.example:9"):
        assert rule.allows(ok), ok
    for bad in ("attacker.example", "corp.example", "rag.example.org.evil.example", "10.0.0.5", "127.0.0.1.nip.io"):
        assert not rule.allows(bad), bad
    wildcard = HostRule.build("0.0.0.0")
    assert wildcard.allows("10.0.0.5:8000") and wildcard.allows("[fe80::1]") and not wildcard.allows("evil.example")
    assert HostRule.build("127.0.0.1", ["*"]).allows("anything.example")


def _check(guard, method: str, **headers: str):  # type: ignore[no-untyped-def]
    raw = {k.lower().replace("_", "-").encode(): v.encode() for k, v in headers.items()}
    return guard.check(method, "http", {b"host": b"127.0.0.1:8000", **raw})


def test_cross_site_rule() -> None:
    guard = build_guard("127.0.0.1", [], ["https://app.example"])
    assert _check(guard, "GET", origin="https://evil.example") is None  # reads: CORS decides
    assert _check(guard, "POST", origin="https://evil.example", content_type="application/json").status == 403
    assert _check(guard, "POST", origin="null", content_type="application/json").status == 403
    assert _check(guard, "DELETE", referer="https://evil.example/x").status == 403
    assert _check(guard, "POST", origin="http://127.0.0.1:8000", content_type="application/json") is None
    assert _check(guard, "POST", origin="https://app.example", content_type="application/json") is None
    assert _check(guard, "POST", content_type="text/plain").code == "csrf_header_missing"
    assert _check(guard, "POST", content_type="multipart/form-data; boundary=x").status == 403
    assert _check(guard, "POST").status == 403  # a body-less form post
    assert _check(guard, "POST", content_type="multipart/form-data; boundary=x", x_ragkit_client="1") is None
    assert _check(guard, "POST", content_type="text/plain", authorization="Bearer k") is None
    assert _check(guard, "POST", content_type="application/vnd.api+json") is None
    assert _check(guard, "DELETE") is None  # not a simple method: browsers preflight it
    assert build_guard("127.0.0.1", [], ["*"]).check("POST", "http", {b"origin": b"https://x.example",
                                                                      b"content-type": b"application/json"}) is None


def test_messages_lose_server_paths() -> None:
    assert without_paths("the index catalog /srv/data/idx/catalog.duckdb is busy") == "the index catalog catalog.duckdb is busy"
    assert without_paths(r"cannot open C:\Users\me\idx\state.db now") == "cannot open state.db now"
    kept = "see http://127.0.0.1:8000/v1/models or notes/faq.md"
    assert without_paths(kept) == kept


def test_disk_full_is_found_through_the_exception_chain() -> None:
    assert disk_full(OSError(errno.ENOSPC, "No space left on device")) == "the server's disk"
    try:
        try:
            raise sqlite3.OperationalError("database or disk is full")
        except sqlite3.OperationalError as exc:
            raise RuntimeError("storing the turn failed") from exc
    except RuntimeError as wrapped:
        assert "state.db" in (disk_full(wrapped) or "")
    assert disk_full(ValueError("bad")) is None and disk_full(OSError(errno.EACCES, "denied")) is None


def test_lone_surrogates_are_found_with_their_field() -> None:
    assert bad_text({"messages": [{"role": "user", "content": "ok"}, {"content": "x\ud800"}]}) == "messages.1.content"
    assert bad_text({"k\udc00": 1}) == "k\udc00"
    assert bad_text({"text": "\U0001f600 fine"}) is None and bad_text(["a", 1, None]) is None


def test_an_upload_batch_is_all_or_nothing(tmp_path: Path) -> None:
    root, staging = tmp_path / "uploads", tmp_path / "staging"
    root.mkdir()
    (root / "old.md").write_text("old")
    batch = UploadBatch(root, staging)
    batch.stage(root / "old.md", b"new")
    batch.stage(root / "deep" / "a.md", b"a")
    batch.stage(root / "old.md" / "x.md", b"cannot be: old.md is a file")
    with pytest.raises(OSError):
        batch.commit()
    assert (root / "old.md").read_text() == "old" and not (root / "deep").exists()
    assert not any(staging.rglob("*upload-*")) and not any(p.is_file() for p in staging.rglob("*"))
    ok = UploadBatch(root, staging)
    ok.stage(root / "old.md", b"new")
    ok.stage(root / "deep" / "a.md", b"a")
    ok.commit()
    assert (root / "old.md").read_text() == "new" and (root / "deep" / "a.md").read_text() == "a"
    ok.rollback()  # e.g. recording the batch failed: the old file is back, the new one gone
    assert (root / "old.md").read_text() == "old" and not (root / "deep").exists()
    ok = UploadBatch(root, staging)
    ok.stage(root / "old.md", b"new")
    ok.stage(root / "deep" / "a.md", b"a")
    ok.commit()
    ok.finish()
    assert (root / "old.md").read_text() == "new" and not any(p.is_file() for p in staging.rglob("*"))
    assert clashes(root, ["deep"]) == ("deep", "'deep' is already a folder of uploaded documents")
    assert clashes(root, ["old.md/y.md"])[1].startswith("'old.md' is already an uploaded document")
    assert clashes(root, ["n/a.md", "n"])[1] == "'n' is also uploaded as a file in this request"
    assert clashes(root, ["fresh/a.md"]) is None


def test_keys_ids_admin_revocation_and_a_private_state_db(tmp_path: Path) -> None:
    db = Database.open(tmp_path / "state.db")
    records = Records(db)
    assert stat.S_IMODE((tmp_path / "state.db").stat().st_mode) == 0o600
    first, info = records.create_key("ops")
    second, info2 = records.create_key("alice")
    assert info["admin"] and not info2["admin"] and info["id"] != info2["id"]
    who = records.principal(second)
    assert who == Principal(info2["id"], "alice", admin=False) and records.principal("rk-nope") is None
    assert records.keys()[1]["last_used_at"] is not None
    assert first not in str(records.keys()) and second not in str(records.keys())
    records.revoke_key("alice")
    assert records.principal(second) is None and records.has_keys()
    with pytest.raises(LookupError, match="no API key"):
        records.revoke_key("bob")
    db.close()


def test_an_older_state_db_gains_owners_and_key_ids(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE api_keys(hash TEXT PRIMARY KEY, name TEXT, created_at DOUBLE PRECISION);
        INSERT INTO api_keys VALUES ('aaa', 'first', 1), ('bbb', 'second', 2);
        CREATE TABLE sessions(id TEXT PRIMARY KEY, title TEXT, created_at DOUBLE PRECISION,
            updated_at DOUBLE PRECISION, ended_at DOUBLE PRECISION, metadata TEXT);
        INSERT INTO sessions VALUES ('s1', 'old', 1, 1, NULL, '{}');""")
    con.commit()
    con.close()
    path.chmod(0o644)
    db = Database.open(path)
    records, store = Records(db), SQLSessionStore(db)
    keys = {k["name"]: k for k in records.keys()}
    assert keys["first"]["admin"] and not keys["second"]["admin"] and keys["second"]["id"].startswith("key_")
    assert store.get("s1").owner is None and store.list(owner="key_x") == [] and len(store.list()) == 1
    mine = store.create("s2", owner="key_x")
    assert mine.owner == "key_x" and [s.id for s in store.list(owner="key_x")] == ["s2"]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert LOCAL.sees(None) and not Principal("key_x").sees(None) and Principal("key_x").sees("key_x")
    db.close()


def test_sessions_created_during_a_request_belong_to_its_key(tmp_path: Path) -> None:
    import contextvars

    from ragkit.server.ownership import OwnedSessions, current_owner

    store = OwnedSessions(SQLSessionStore(Database.open(tmp_path / "state.db")))

    def as_key() -> None:  # a request's context: its key, whatever code creates the session
        current_owner.set("key_a")
        store.create("made-by-a-turn")
        store.create("named", owner="key_b")

    contextvars.copy_context().run(as_key)
    assert store.get("made-by-a-turn").owner == "key_a" and store.get("named").owner == "key_b"
    assert store.create("outside-any-request").owner is None
    assert [s.id for s in store.list(owner="key_a")] == ["made-by-a-turn"]


def test_a_folder_another_upload_makes_meanwhile_is_no_conflict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two uploads into the same new folder at once: both see it missing, one makes it first.
    Before, the other's mkdir raised FileExistsError and its request got a 409 "became a folder";
    the folder is shared, so the later batch goes on, and its rollback leaves the folder alone."""
    root = tmp_path / "uploads"
    root.mkdir()
    batch = UploadBatch(root, tmp_path / "staging")
    batch.stage(root / "burst" / "b01.md", b"Burst note 1 about the tide.")
    made_first = Path.mkdir

    def racing(self: Path, *args: object, **kwargs: object) -> None:  # the other request wins the race
        made_first(self, *args, **kwargs)
        raise FileExistsError(str(self))

    monkeypatch.setattr(Path, "mkdir", racing)
    batch.commit()
    monkeypatch.undo()
    assert (root / "burst" / "b01.md").read_bytes() == b"Burst note 1 about the tide."
    batch.rollback()
    assert (root / "burst").is_dir() and not (root / "burst" / "b01.md").exists()  # the shared folder stays
    (root / "lamp").write_text("a file, not a folder", encoding="utf-8")
    clash = UploadBatch(root, tmp_path / "staging")
    clash.stage(root / "lamp" / "x.md", b"x")
    with pytest.raises(NotADirectoryError):  # a file where the folder should be is still a conflict
        clash.commit()
