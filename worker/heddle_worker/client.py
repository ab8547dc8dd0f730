"""The worker protocol over HTTP (docs/training-worker-protocol.md), with the standard library only."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any, Optional


class Stale(Exception):
    """409: the lease is gone (stale token, job finished or deleted); drop the job's result."""


class HttpError(Exception):
    def __init__(self, status: int, body: str):
        super().__init__(f"HTTP {status}: {body[:500]}")
        self.status = status
        self.body = body


class HeddleClient:
    def __init__(self, server: str, api_key: str, timeout: float = 120.0):
        self.server = server.rstrip("/")
        self.auth = f"Bearer {api_key}"
        self.timeout = timeout

    def _request(self, method: str, path: str, body: Any = None, raw: Optional[bytes] = None,
                 content_type: str = "application/json", headers: Optional[dict] = None) -> tuple[int, dict, bytes]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.server + path, data=data, method=method)
        req.add_header("authorization", self.auth)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        if data is not None:
            req.add_header("content-type", content_type)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return res.status, dict(res.headers), res.read()
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            if e.code == 409:
                raise Stale(text) from e
            raise HttpError(e.code, text) from e

    def _json(self, method: str, path: str, body: Any = None, retries: int = 3) -> dict:
        for attempt in range(retries):
            try:
                _, _, out = self._request(method, path, body)
                return json.loads(out or b"{}")
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                if attempt == retries - 1:
                    raise
                time.sleep(0.5 * 2**attempt)
        raise AssertionError("unreachable")

    def lease(self, worker_id: str, base_models: list[str], lease_seconds: float,
              inference_url: Optional[str], inference_token: Optional[str]) -> Optional[dict]:
        body: dict = {"worker_id": worker_id, "base_models": base_models, "lease_seconds": lease_seconds}
        if inference_url:
            body["inference_url"] = inference_url
            body["inference_token"] = inference_token
        return self._json("POST", "/v1/workers/lease", body).get("job")

    def parent_checkpoint(self, job: dict) -> bytes:
        path = f"/v1/workers/jobs/{job['id']}/parent-checkpoint?fencing_token={job['fencing_token']}"
        _, _, data = self._request("GET", path)
        return data

    def checkpoint(self, model_id: str, step: int) -> bytes:
        """A stored checkpoint of a model (for serving a step this worker did not train)."""
        _, _, data = self._request("GET", f"/v1/workers/models/{model_id}/checkpoints/{step}")
        return data

    def heartbeat(self, job: dict, lease_seconds: float) -> None:
        self._json("POST", f"/v1/workers/jobs/{job['id']}/heartbeat",
                   {"fencing_token": job["fencing_token"], "lease_seconds": lease_seconds})

    def event(self, job: dict, seq: int, type_: str, data: dict) -> None:
        self._json("POST", f"/v1/workers/jobs/{job['id']}/events",
                   {"fencing_token": job["fencing_token"], "seq": seq, "type": type_, "data": data}, retries=5)

    def complete(self, job: dict, checkpoint: bytes, metrics: dict, steps: int) -> dict:
        """Uploads the checkpoint as the raw body (no base64, no JSON body limit) and completes the job."""
        path = f"/v1/workers/jobs/{job['id']}/checkpoint?fencing_token={job['fencing_token']}&num_gradient_steps={steps}"
        headers = {"x-heddle-metrics": json.dumps({k: float(v) for k, v in metrics.items()})}
        _, _, out = self._request("POST", path, raw=checkpoint, content_type="application/octet-stream",
                                  headers=headers)
        return json.loads(out)

    def fail(self, job: dict, message: str) -> None:
        self._json("POST", f"/v1/workers/jobs/{job['id']}/fail",
                   {"fencing_token": job["fencing_token"], "error_message": message[:4000]})

    def release(self, job: dict, reason: str) -> str:
        """Hands the job back (the worker is stopping): "queued" again, or "failed" once it had events."""
        return self._json("POST", f"/v1/workers/jobs/{job['id']}/release",
                          {"fencing_token": job["fencing_token"], "reason": reason[:1000]}).get("status", "")
