"""Drives the official weave client against a Heddle server for test/clients/python-client.test.ts.

Usage: trace_demo.py PROJECT            trace nested ops, read them back, print one JSON line
       trace_demo.py --init-only PROJECT  only weave.init; prints the error if it raises

The server comes from WF_TRACE_SERVER_URL / WANDB_BASE_URL / WANDB_API_KEY. The last stdout line is
the JSON result; everything the client logs goes before it or to stderr.
"""

import json
import sys

import weave
from weave.trace.env import weave_trace_server_url


@weave.op
def double(x: int) -> int:
    return x * 2


@weave.op
def explode(x: int) -> int:
    raise ValueError(f"cannot handle {x}")


@weave.op
def pipeline(x: int) -> dict:
    doubled = double(x)
    try:
        explode(x)
    except ValueError:
        pass
    return {"doubled": doubled, "label": f"x={x}"}


def call_json(call) -> dict:
    summary = call.summary or {}
    return {
        "id": call.id,
        "trace_id": call.trace_id,
        "parent_id": call.parent_id,
        "op_name": call.op_name,
        "inputs": dict(call.inputs or {}),
        "output": call.output,
        "exception": call.exception,
        "status": (summary.get("weave") or {}).get("status"),
    }


def init_only(project: str) -> dict:
    try:
        client = weave.init(project)
    except Exception as error:  # the test asserts on the type and message
        return {"error_type": type(error).__name__, "error": str(error)}
    return {"entity": client.entity, "project": client.project}


def trace(project: str) -> dict:
    client = weave.init(project)
    root_output = pipeline(21)
    client.flush()
    calls = [call_json(c) for c in client.get_calls()]
    return {
        "entity": client.entity,
        "project": client.project,
        "root_output": root_output,
        "calls": calls,
        "trace_server_url": weave_trace_server_url(),
    }


def main() -> None:
    args = sys.argv[1:]
    result = init_only(args[1]) if args[0] == "--init-only" else trace(args[0])
    sys.stdout.write(json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
