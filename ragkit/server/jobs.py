"""The ingest job queue: jobs are rows in the state database; every worker process runs one
``JobRunner`` thread that claims the oldest queued job and runs it through the index adapter.

The pipeline's single-writer lock makes one job run at a time across all workers (and beside a
``ragkit index`` run): a job that finds the index locked goes back to the queue. A job whose
worker was killed is queued again by the next claim.
"""

from __future__ import annotations

import logging
import threading
import uuid
from typing import Any

from ragkit.errors import IndexLockedError, RagkitError
from ragkit.sessions.db import lock_holder

log = logging.getLogger(__name__)
IDLE_POLL = 0.5
LOCKED_RETRY = 1.0


class JobRunner(threading.Thread):
    def __init__(self, records: Any, library: Any) -> None:
        super().__init__(name="ragkit-jobs", daemon=True)
        self.records, self.library = records, library
        self.holder = lock_holder(uuid.uuid4().hex[:8])
        self.wake = threading.Event()
        self._halt = threading.Event()

    def submit(self, kind: str, request: dict[str, Any], owner: str | None = None) -> str:
        job_id = self.records.add_job(kind, request, owner=owner)
        self.wake.set()
        return job_id

    def stop(self) -> None:
        self._halt.set()
        self.wake.set()

    def run(self) -> None:
        while not self._halt.is_set():
            try:
                job = self.records.claim_job(self.holder)
            except Exception:  # noqa: BLE001 - a busy database must not kill the runner
                log.warning("could not read the job queue; retrying", exc_info=True)
                job = None
            if job is None:
                self.wake.wait(IDLE_POLL)
                self.wake.clear()
                continue
            self._run(job)

    def _run(self, job: dict[str, Any]) -> None:
        log.info("ingest job %s (%s) started", job["id"], job["kind"])
        try:
            report = self.library.ingest()
        except IndexLockedError:
            log.info("the index is being written by another process; job %s waits", job["id"])
            self.records.requeue_job(job["id"])
            self._halt.wait(LOCKED_RETRY)
            return
        except RagkitError as exc:
            self.records.finish_job(job["id"], result=None, error=str(exc))
            return
        except Exception as exc:  # noqa: BLE001 - reported in the job, logged here
            log.exception("ingest job %s failed", job["id"])
            self.records.finish_job(job["id"], result=None, error=f"{type(exc).__name__}: {exc}")
            return
        self.records.finish_job(job["id"], result=summarize(report), error=None)
        log.info("ingest job %s finished", job["id"])


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
