"""Retrieval and ingest: ``POST /search``, ``POST /documents`` (files or JSON text; returns a job
at once), ``GET /jobs/{id}``, ``GET /documents`` and ``DELETE /documents/{source}``.

Uploads are written (atomically, via a temporary file) only inside the index's upload area;
a name that would leave it is refused. The job indexes the upload area through the pipeline.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragkit.errors import ConfigError
from ragkit.server.errors import ApiError
from ragkit.server.library import resolve_upload
from ragkit.server.openai_compat import Filter

router = APIRouter()


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    query: str = Field(min_length=1)
    top_k: int | None = Field(None, ge=1, le=50)
    filter: Filter = None
    retriever: Literal["dense", "bm25", "hybrid"] | None = None


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
                                   kind=body.retriever)
    return {"object": "list", "data": hits}


def _write(root: Path, name: str, data: bytes) -> str:
    try:
        target = resolve_upload(root, name)
    except ConfigError as exc:
        raise ApiError(400, str(exc), param="name", code="invalid_document_name") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=root, prefix=".upload-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target.relative_to(root.resolve()).as_posix()


async def _uploads(request: Request) -> list[tuple[str, bytes]]:
    ctype = request.headers.get("content-type", "")
    if ctype.startswith("multipart/form-data"):
        form = await request.form(max_files=200, max_fields=50)
        files = [(f.filename or "", await f.read()) for f in form.getlist("files") if hasattr(f, "read")]
        if not files:
            raise ApiError(400, "no files: send them as multipart field 'files'", param="files", code="invalid_field")
        return files
    try:
        body = TextDocuments.model_validate_json(await request.body())
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise ApiError(422, f"invalid field '{where}': {first['msg']} (send multipart 'files' or JSON "
                       "{\"documents\": [{\"name\", \"text\"}]})", param=where, code="invalid_field") from None
    return [(d.name, d.text.encode("utf-8")) for d in body.documents]


@router.post("/documents", status_code=202)
async def add_documents(request: Request) -> JSONResponse:
    state = _state(request)
    files = await _uploads(request)
    root = state.settings.uploads_dir
    root.mkdir(parents=True, exist_ok=True)
    uploads = []
    for name, _ in files:  # validate every name before writing any file
        try:
            uploads.append(resolve_upload(root, name).relative_to(root.resolve()).as_posix())
        except ConfigError as exc:
            raise ApiError(400, str(exc), param="name", code="invalid_document_name") from None
    taken = await asyncio.to_thread(state.library.taken, uploads)
    if taken:
        raise ApiError(409, f"'{taken[0]}' is already the name of a document indexed from a folder: upload it "
                       f"under another name, e.g. uploads/{taken[0]}", param="name", code="name_taken")
    names = [await asyncio.to_thread(_write, root, name, data) for name, data in files]
    job_id = await asyncio.to_thread(state.jobs.submit, "ingest", {"documents": names})
    return JSONResponse({"id": job_id, "object": "job", "status": "queued", "documents": names}, status_code=202)


@router.get("/jobs/{job_id}")
async def get_job(job_id: str, request: Request) -> dict[str, Any]:
    job = await asyncio.to_thread(_state(request).records.job, job_id)
    if job is None:
        raise ApiError(404, f"no job '{job_id}'", param="job_id", code="job_not_found")
    return job


@router.get("/documents")
async def list_documents(request: Request) -> dict[str, Any]:
    return {"object": "list", "data": await asyncio.to_thread(_state(request).library.documents)}


@router.delete("/documents/{source:path}", status_code=202)
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
    if not target.is_file():
        raise ApiError(404, f"no uploaded document '{source}'", param="source", code="document_not_found")
    target.unlink()
    job_id = await asyncio.to_thread(state.jobs.submit, "delete", {"documents": [source]})
    return JSONResponse({"id": job_id, "object": "job", "status": "queued", "documents": [source]},
                        status_code=202)
