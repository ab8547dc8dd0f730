"""`python -m heddle_worker --server URL --api-key KEY --model NAME=DIR …`: lease, train, serve."""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import socket
import sys
import threading
import traceback

import torch

from .client import HeddleClient, Stale
from .engine import CheckpointFormatError, Engine
from .jobs import run_rl, run_sft
from .serve import InferenceServer
from .trajectory import TrainingContentError


def log(msg: str) -> None:
    print(f"heddle-worker: {msg}", flush=True)


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="heddle_worker", description=__doc__)
    p.add_argument("--server", required=True, help="Heddle's base URL, e.g. http://localhost:8080")
    p.add_argument("--api-key", default=os.environ.get("HEDDLE_API_KEY"), help="or HEDDLE_API_KEY")
    p.add_argument("--model", action="append", required=True, metavar="NAME=DIR",
                   help="a base model name (as jobs name it) and its local Hugging Face directory; repeatable")
    p.add_argument("--worker-id", default=f"{socket.gethostname()}-{os.getpid()}")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--dtype", default="auto", choices=["auto", "float32", "bfloat16", "float16"])
    p.add_argument("--lora-rank", type=int, default=8)
    p.add_argument("--lora-alpha", type=int, default=16)
    p.add_argument("--max-tokens", type=int, default=8192, help="longest history trained on")
    p.add_argument("--batch-tokens", type=int, default=8192, help="padded tokens per gradient step")
    p.add_argument("--lease-seconds", type=float, default=60)
    p.add_argument("--poll-seconds", type=float, default=1.0)
    p.add_argument("--serve-host", default="127.0.0.1", help="where the inference endpoint listens")
    p.add_argument("--serve-port", type=int, default=0, help="0: any free port")
    p.add_argument("--serve-slots", type=int, default=64,
                   help="sequences decoded at once (KV cache slots; memory: slots x max-len x per-token KV)")
    p.add_argument("--serve-max-len", type=int, default=4096, help="longest prompt + completion served")
    p.add_argument("--kv-cache-gib", type=float, default=16,
                   help="memory bound of the KV cache: fewer slots than --serve-slots when they would not fit")
    p.add_argument("--max-adapters", type=int, default=16, help="checkpoints cached for serving at once")
    p.add_argument("--adapter-cache-mib", type=int, default=1024, help="memory bound of that cache")
    p.add_argument("--cuda-graphs", action="store_true",
                   help="decode with fixed-shape steps replayed as CUDA graphs (experimental: see worker/README.md)")
    p.add_argument("--advertise-url", default=None,
                   help="the inference URL Heddle should call (default http://SERVE_HOST:PORT); 'none' disables serving")
    args = p.parse_args(argv)
    if not args.api_key:
        p.error("--api-key or HEDDLE_API_KEY is required")
    return args


class Stopping(Exception):
    """SIGTERM or SIGINT: hand the job back and exit."""


class Worker:
    def __init__(self, args):
        self.args = args
        self.stopping = threading.Event()
        self.stop_reason = "stopped"
        self.client = HeddleClient(args.server, args.api_key)
        self.engines: dict[str, Engine] = {}
        for spec in args.model:
            name, sep, path = spec.partition("=")
            if not sep or not name or not path:
                raise SystemExit(f"--model expects NAME=DIR, got {spec!r}")
            log(f"loading {name} from {path} on {args.device}")
            self.engines[name] = Engine(name, path, args.device, args.dtype, args.lora_rank, args.lora_alpha,
                                        max_adapters=args.max_adapters, serve_slots=args.serve_slots,
                                        serve_max_len=args.serve_max_len,
                                        adapter_cache_bytes=args.adapter_cache_mib << 20,
                                        cuda_graphs=args.cuda_graphs,
                                        kv_cache_bytes=int(args.kv_cache_gib * 2**30))
            d = self.engines[name].decoder
            log(f"{name}: {d.slots} sequences x {d.max_len} tokens of KV cache ({d.cache_bytes / 2**30:.2f} GiB), "
                f"{d.bank.capacity} adapters cached")
        self.inference_url = None
        self.inference_token = secrets.token_urlsafe(24)
        if (args.advertise_url or "").lower() != "none":
            server = InferenceServer(args.serve_host, args.serve_port, self.inference_token, self.engines,
                                     self.client.checkpoint)
            server.start()
            self.inference_url = args.advertise_url or f"http://{args.serve_host}:{server.port}"
            log(f"serving completions on {self.inference_url}")

    def stop(self, signum, _frame) -> None:
        self.stop_reason = signal.Signals(signum).name
        log(f"{self.stop_reason}: stopping")
        self.stopping.set()

    def run(self) -> None:
        log(f"ready: worker {self.args.worker_id}, base models {sorted(self.engines)}")
        while not self.stopping.is_set():
            try:
                job = self.client.lease(self.args.worker_id, sorted(self.engines), self.args.lease_seconds,
                                        self.inference_url, self.inference_token)
            except Exception as e:  # Heddle restarting or unreachable: keep polling
                log(f"lease failed: {e}")
                job = None
            if job is None:
                self.stopping.wait(self.args.poll_seconds)
                continue
            self.run_job(job)
        log("stopped")

    def run_job(self, job: dict) -> None:
        log(f"job {job['id']} ({job['kind']}) of model {job['model_id']}, parent step {job.get('parent_step')}")
        stop = threading.Event()
        lost = threading.Event()

        def beat():
            while not stop.wait(self.args.lease_seconds / 3):
                try:
                    self.client.heartbeat(job, self.args.lease_seconds)
                except Stale:
                    lost.set()
                    return
                except Exception as e:
                    log(f"heartbeat failed: {e}")

        threading.Thread(target=beat, daemon=True).start()
        seq = [0]

        def emit(type_: str, data: dict) -> None:
            if lost.is_set():
                raise Stale("lease lost")
            if self.stopping.is_set():
                raise Stopping()
            seq[0] += 1
            self.client.event(job, seq[0], type_, {k: float(v) for k, v in data.items()})

        try:
            if self.stopping.is_set():
                raise Stopping()
            engine = self.engines[job["base_model"]]
            parent = self.client.parent_checkpoint(job)
            opts = {"max_tokens": self.args.max_tokens}
            if job["kind"] == "sft":
                out = run_sft(engine, job, parent, emit, **opts)
            else:
                out = run_rl(engine, job, parent, emit, batch_tokens=self.args.batch_tokens, **opts)
            if lost.is_set():  # (a stop after the last step still completes the job)
                engine.discard(out.trained.name)
                raise Stale("lease lost")
            try:
                done = self.client.complete(job, out.checkpoint, out.metrics, out.num_gradient_steps)
            except BaseException:
                engine.discard(out.trained.name)
                raise
            # the next job of this model continues from this checkpoint with the same adapter and AdamW state
            engine.keep(job["model_id"], done["checkpoint_id"], out.trained)
            engine.load_checkpoint(done["checkpoint_id"], out.checkpoint)
            log(f"job {job['id']} done: step {done['step']}, {out.num_gradient_steps} gradient steps, "
                f"{out.trained_tokens} tokens in {out.seconds:.2f}s")
        except Stale:
            log(f"job {job['id']}: lease lost, result discarded")
        except Stopping:
            try:
                status = self.client.release(job, self.stop_reason)
                log(f"job {job['id']} handed back: {status}")
            except Exception as e:
                log(f"could not hand the job back: {e}")
        except (TrainingContentError, CheckpointFormatError) as e:
            self._fail(job, str(e))
        except Exception as e:
            traceback.print_exc()
            self._fail(job, f"{type(e).__name__}: {e}")
        finally:
            stop.set()

    def _fail(self, job: dict, message: str) -> None:
        log(f"job {job['id']} failed: {message}")
        try:
            self.client.fail(job, message)
        except Exception as e:
            log(f"could not report the failure: {e}")


def main(argv=None) -> None:
    args = parse_args(argv)
    worker = Worker(args)
    signal.signal(signal.SIGTERM, worker.stop)
    signal.signal(signal.SIGINT, worker.stop)
    worker.run()
    sys.exit(0)
