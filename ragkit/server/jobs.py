"""The ingest job queue: jobs are rows in the state database; every worker process runs one
``JobRunner`` thread that claims the oldest queued job and runs it in the ingest process
(``ingest_worker.IngestWorker``: a child process, so neither the event loop nor the server's
memory carries the job's work).

The pipeline's single-writer lock makes one job run at a time across all workers (and beside a
``ragkit index`` run): a job that finds the index locked goes back to the queue, uncounted.

Every start of a job is counted (``attempts``). A job whose process ended during it (the ingest
process killed or out of memory; the server process killed while running it, found by the next
claim) is queued again, and failed once it was started ``MAX_JOB_STARTS`` times: its error says
why, its uploaded documents are set aside in ``<index>/quarantine/<job id>/`` (no later job
indexes them), and it is never run again, so a document that kills its process cannot take the
server into a crash loop. A server that stops while a job runs queues it again, uncounted.
"""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

from ragkit.errors import IndexLockedError, RagkitError
from ragkit.index.layout import IndexLayout
from ragkit.index.lock import is_locked
from ragkit.server.ingest_worker import IngestDied, IngestWorker
from ragkit.server.records import MAX_JOB_STARTS, died_during
from ragkit.sessions.db import lock_holder

log = logging.getLogger(__name__)
IDLE_POLL = 0.5
LOCKED_RETRY = 1.0


class JobRunner(threading.Thread):
    def __init__(self, records: Any, library: Any) -> None:
        super().__init__(name="ragkit-jobs", daemon=True)
        self.records, self.library = records, library
        self.worker = IngestWorker(library.index_dir, pipeline=library.pipeline, uploads_dir=library.uploads_dir)
        self.holder = lock_holder(uuid.uuid4().hex[:8])
        self.wake = threading.Event()
        self._halt = threading.Event()
        self._current: str | None = None

    def submit(self, kind: str, request: dict[str, Any], owner: str | None = None) -> str:
        job_id = self.records.add_job(kind, request, owner=owner)
        self.wake.set()
        return job_id

    def stop(self) -> None:
        """Stop claiming; a job running now goes back to the queue, uncounted (a restart is not
        the job's fault), and the ingest process stops."""
        self._halt.set()
        self.wake.set()
        current = self._current
        if current is not None:
            try:
                self.records.requeue_job(current)
            except Exception:  # noqa: BLE001 - the next claim finds it by its dead holder
                log.warning("could not queue job %s again on shutdown", current, exc_info=True)
        self.worker.close()

    def run(self) -> None:
        while not self._halt.is_set():
            try:
                for failed in self.records.recover_jobs():
                    self._set_aside(failed)
                # another process writing the index (`ragkit index`): the jobs stay queued, and say so
                job = None if is_locked(IndexLayout(self.library.index_dir)) else self.records.claim_job(self.holder)
            except Exception:  # noqa: BLE001 - a busy database must not kill the runner
                log.warning("could not read the job queue; retrying", exc_info=True)
                job = None
            if job is None:
                self.worker.close_if_idle()
                self.wake.wait(IDLE_POLL)
                self.wake.clear()
                continue
            self._current = job["id"]
            try:
                self._run(job)
            finally:
                self._current = None

    def _run(self, job: dict[str, Any]) -> None:
        log.info("ingest job %s (%s) started (start %d of at most %d)", job["id"], job["kind"], job["attempts"],
                 MAX_JOB_STARTS)
        try:
            report = self.worker.ingest()
        except IndexLockedError:
            log.info("the index is being written by another process; job %s waits", job["id"])
            self.records.requeue_job(job["id"])
            self._halt.wait(LOCKED_RETRY)
            return
        except IngestDied as exc:
            self._died(job, str(exc))
            return
        except RagkitError as exc:
            self.records.finish_job(job["id"], result=None, error=str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - reported in the job, logged here
            log.exception("ingest job %s failed", job["id"])
            self.records.finish_job(job["id"], result=None, error=f"{type(exc).__name__}: {exc}")
            return
        if self._halt.is_set():
            return  # stopping: the job was queued again
        error = nothing_indexed(job, report)
        self.records.finish_job(job["id"], result=summarize(report), error=error)
        log.info("ingest job %s %s", job["id"], "failed: " + error if error else "finished")

    def _died(self, job: dict[str, Any], reason: str) -> None:
        if self._halt.is_set():
            return  # the server stopped the ingest process: the job was queued again
        if job["attempts"] < MAX_JOB_STARTS:
            log.warning("ingest job %s: %s; it runs once more", job["id"], reason)
            self.records.requeue_job(job["id"], counted=True)
            return
        log.error("ingest job %s: %s (start %d): failed, its documents set aside", job["id"], reason,
                  job["attempts"])
        self.records.finish_job(job["id"], result=None, error=died_during(job["attempts"], reason))
        self._set_aside(job)

    def _set_aside(self, job: dict[str, Any]) -> None:
        """Move a given-up job's uploads out of the upload area (no later job indexes them)."""
        if job.get("kind") != "ingest":
            return
        names = [n for n in job.get("request", {}).get("documents", []) if isinstance(n, str)]
        try:
            moved = self.library.set_aside(names, job["id"])
            for name in moved:
                self.records.forget_upload(name)
        except Exception:  # noqa: BLE001 - the job is failed either way; say what is left
            log.exception("job %s: could not set its documents aside", job["id"])
            return
        if moved:
            log.warning("job %s: set aside in quarantine/%s/ of the index: %s", job["id"], job["id"], ", ".join(moved))


def nothing_indexed(job: dict[str, Any], report: dict[str, Any]) -> str | None:
    """Why an ingest job failed when every document it was given was skipped (a file over a
    limit, an unreadable one): each document with its reason. None when any of them got in."""
    names = [n for n in job.get("request", {}).get("documents", []) if isinstance(n, str)]
    skipped = {s.get("source"): s.get("reason", "") for s in report.get("skipped", []) if isinstance(s, dict)}
    if job.get("kind") != "ingest" or not names or any(n not in skipped for n in names):
        return None
    return "nothing of this job could be indexed: " + "; ".join(f"{n}: {skipped[n]}" for n in names)


def summarize(report: dict[str, Any]) -> dict[str, Any]:
    """What ``GET /jobs/{id}`` reports of an indexing run."""
    return {
        "counts": {"added": len(report.get("added", [])), "updated": len(report.get("updated", [])),
                   "unchanged": report.get("unchanged", 0), "removed": len(report.get("removed", [])),
                   "skipped": len(report.get("skipped", [])), "chunks_added": report.get("chunks_added", 0),
                   "chunks_removed": report.get("chunks_removed", 0), "chunks_total": report.get("chunks_total", 0)},
        "added": report.get("added", []), "updated": report.get("updated", []), "removed": report.get("removed", []),
        "skipped": report.get("skipped", []),
        "embedding_tokens": report.get("embedding_tokens", 0), "cost": report.get("embedding_cost", 0.0),
        "seconds": report.get("seconds", 0.0),
    }
