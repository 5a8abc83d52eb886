"""Retrieval and ingest: ``POST /search``, ``POST /documents`` (files or JSON text; returns a job
at once), ``GET /jobs/{id}``, ``GET /documents`` and ``DELETE /documents/{source}``.

Uploads are written only inside the index's upload area, all files of a request or none
(``uploads.UploadBatch``); a name that would leave it, that the pipeline would not index (a hidden
file, an unknown extension...) or that belongs to another document is refused before anything is
written, with the reason. An upload belongs to the API key that sent it: another key cannot
replace, see, find or delete it. The job indexes the upload area through the pipeline.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragkit.errors import ConfigError
from ragkit.index.layout import IndexLayout
from ragkit.server.auth import principal
from ragkit.server.errors import ApiError, error_responses
from ragkit.server.library import hidden_sources, resolve_upload
from ragkit.server.openai_compat import Filter
from ragkit.server.uploads import UploadBatch, clashes

router = APIRouter()


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1)
    top_k: int | None = Field(None, ge=1, le=50)
    filter: Filter = None
    retriever: Literal["dense", "bm25", "hybrid"] | None = None
    min_score: float | None = Field(None, allow_inf_nan=False, strict=True)  # in the retriever's units (docs/guides/retrieval.md)


class TextDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=255)
    text: str


class TextDocuments(BaseModel):
    model_config = ConfigDict(extra="forbid")
    documents: list[TextDocument] = Field(min_length=1)


def _state(request: Request) -> Any:
    return request.app.state.ragkit


@router.post("/search")
async def search(body: SearchRequest, request: Request) -> dict[str, Any]:
    if not body.query.strip():
        raise ApiError(400, "the search query is empty", param="query", code="invalid_field")
    hits = await asyncio.to_thread(_state(request).library.search, body.query, k=body.top_k, filter=body.filter,
                                   kind=body.retriever, min_score=body.min_score)
    return {"object": "list", "data": hits}


async def _uploads(request: Request) -> list[tuple[str, bytes]]:
    ctype = request.headers.get("content-type", "")
    if ctype.startswith("multipart/form-data"):
        form = await request.form(max_files=200, max_fields=50)
        files = [(f.filename or "", await f.read()) for f in form.getlist("files") if hasattr(f, "read")]
        if not files:
            raise ApiError(400, "no files: send them as multipart field 'files'", param="files", code="invalid_field")
        return files
    try:
        body = await asyncio.to_thread(TextDocuments.model_validate_json, await request.body())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(400, f"invalid field '{where}': {first['msg']} (send multipart 'files' or JSON "
                       "{\"documents\": [{\"name\", \"text\"}]})", param=where, code="invalid_field") from None
    return [(d.name, d.text.encode("utf-8")) for d in body.documents]


def _names(root: Path, files: list[tuple[str, bytes]], multipart: bool) -> list[str]:
    """Every upload's name in the upload area, checked before anything is written."""
    names: list[str] = []
    for n, (name, _) in enumerate(files):
        param = "files" if multipart else f"documents.{n}.name"
        try:
            names.append(resolve_upload(root, name).relative_to(root.resolve()).as_posix())
        except ConfigError as exc:
            raise ApiError(400, str(exc), param=param, code="invalid_document_name") from None
        if names[-1] in names[:-1]:
            raise ApiError(400, f"'{names[-1]}' is named twice in this request; send each document once",
                           param=param, code="invalid_document_name")
    return names


def _check(state: Any, who: Any, root: Path, names: list[str], files: list[tuple[str, bytes]]) -> None:
    """Refuse the whole request (nothing written) when one of its documents cannot be stored."""
    for name, (_, data) in zip(names, files, strict=True):
        why = state.library.refusal(name, len(data))
        if why is not None:
            raise ApiError(400, f"'{name}' would not be indexed: {why}; nothing of this request was stored",
                           param="name", code="document_not_indexable")
    taken = state.library.taken(names)
    if taken:
        raise ApiError(409, f"'{taken[0]}' is already the name of a document indexed from a folder: upload it "
                       f"under another name, e.g. uploads/{taken[0]}", param="name", code="name_taken")
    for name in names:
        exists, owner = state.records.owner_of("upload", name)
        if exists and not who.sees(owner):
            raise ApiError(409, f"'{name}' is already the name of a document uploaded with another API key: "
                           "upload it under another name", param="name", code="name_taken")
    clash = clashes(root, names)
    if clash is not None:
        raise ApiError(409, f"'{clash[0]}' cannot be stored: {clash[1]}; upload it under another name",
                       param="name", code="name_taken")


def _store(state: Any, who: Any, root: Path, names: list[str], files: list[tuple[str, bytes]]) -> str:
    """Write the batch, record its owner and queue its job: all of it, or nothing."""
    batch = UploadBatch(root, IndexLayout(state.settings.index_dir).upload_staging)
    try:
        for name, (_, data) in zip(names, files, strict=True):
            batch.stage(root / name, data)
        batch.commit()
    except (IsADirectoryError, NotADirectoryError, FileExistsError):
        batch.discard()
        raise ApiError(409, "a name of this request became a folder (or the reverse) while it was written; "
                       "nothing was stored", param="name", code="name_taken") from None
    except BaseException:
        batch.discard()
        raise
    try:
        with state.db.transaction():
            state.records.record_uploads(names, who.owner)
            job_id = state.records.add_job("ingest", {"documents": names}, owner=who.owner)
    except BaseException:
        batch.rollback()  # the files it replaced come back
        raise
    batch.finish()
    state.jobs.wake.set()
    return job_id


def _inline(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """A pydantic JSON schema with its ``$defs`` references inlined (for a hand-made request body)."""
    defs = schema.get("$defs", {}) if defs is None else defs
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline(v, defs) for v in schema]
    return schema


UPLOAD_BODY = {"required": True, "content": {
    "application/json": {"schema": _inline(TextDocuments.model_json_schema())},
    "multipart/form-data": {"schema": {
        "type": "object", "required": ["files"],
        "properties": {"files": {"type": "array", "items": {"type": "string", "format": "binary"},
                                 "description": "the files; each file's name is its document name"}}}},
}}


@router.post("/documents", status_code=202, responses=error_responses(409),
             openapi_extra={"requestBody": UPLOAD_BODY})
async def add_documents(request: Request) -> JSONResponse:
    state, who = _state(request), principal(request)
    multipart = request.headers.get("content-type", "").startswith("multipart/form-data")
    files = await _uploads(request)
    root = state.settings.uploads_dir
    root.mkdir(parents=True, exist_ok=True)
    names = _names(root, files, multipart)
    await asyncio.to_thread(_check, state, who, root, names, files)
    job_id = await asyncio.to_thread(_store, state, who, root, names, files)
    return JSONResponse({"id": job_id, "object": "job", "status": "queued", "documents": names}, status_code=202)


@router.get("/jobs/{job_id}")
async def get_job(job_id: str, request: Request) -> dict[str, Any]:
    job = await asyncio.to_thread(_state(request).records.job, job_id, principal(request))
    if job is None:
        raise ApiError(404, f"no job '{job_id}'", param="job_id", code="job_not_found")
    return job


@router.get("/documents")
async def list_documents(request: Request) -> dict[str, Any]:
    docs = await asyncio.to_thread(_state(request).library.documents, hidden_sources.get())
    return {"object": "list", "data": docs}


@router.delete("/documents/{source:path}", status_code=202, responses=error_responses(409))
async def delete_document(source: str, request: Request) -> JSONResponse:
    state = _state(request)
    root = state.settings.uploads_dir
    upload = await asyncio.to_thread(state.library.upload_of, source)
    if upload is None:
        raise ApiError(409, f"'{source}' was indexed from a folder, not uploaded: remove it there and run "
                       "`ragkit index` again", param="source", code="not_uploaded")
    try:
        target = resolve_upload(root, upload)
    except ConfigError as exc:
        raise ApiError(400, str(exc), param="source", code="invalid_document_name") from None
    if not target.is_file() or source in hidden_sources.get():
        raise ApiError(404, f"no document '{source}'", param="source", code="document_not_found")
    target.unlink()
    await asyncio.to_thread(state.records.forget_upload, upload)
    job_id = await asyncio.to_thread(state.jobs.submit, "delete", {"documents": [source]}, principal(request).owner)
    return JSONResponse({"id": job_id, "object": "job", "status": "queued", "documents": [source]},
                        status_code=202)
