"""Logs calls with the official weave client while other clients rush the node, for
test/clients/python-rush.test.ts.

Usage: rush_demo.py PROJECT COUNT

As backpressure_demo.py (prints "READY", waits for a line on stdin, traces COUNT calls, flushes,
prints the ids as one JSON line), and it also writes "RETRY <error>" to stderr for each retry the
client's retry logic (weave/utils/retry.py) makes, so the test can see the node refused it.
"""

import json
import logging
import sys

import weave


class _Retries(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() in ("retry_attempt", "retry_failed"):
            print(f"RETRY {record.getMessage()} {getattr(record, 'exception', '')}", file=sys.stderr, flush=True)


@weave.op
def square(x: int) -> int:
    return x * x


def main(project: str, count: int) -> dict:
    retry_logger = logging.getLogger("weave.utils.retry")
    retry_logger.setLevel(logging.INFO)
    retry_logger.addHandler(_Retries())
    client = weave.init(project)
    print("READY", flush=True)
    sys.stdin.readline()
    ids = []
    for i in range(count):
        _, call = square.call(i)
        ids.append(call.id)
    client.flush()
    return {"ids": ids}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], int(sys.argv[2]))))
