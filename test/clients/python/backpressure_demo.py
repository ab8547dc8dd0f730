"""Logs calls with the official weave client while Heddle refuses writes, for
test/clients/python-backpressure.test.ts.

Usage: backpressure_demo.py PROJECT COUNT

After weave.init it prints "READY" and waits for a line on stdin (the test stalls the store in
between), then traces COUNT calls, flushes (the client retries 429/503 answers and requeues what
still failed) and prints one JSON line with the ids of the calls it logged.
"""

import json
import sys

import weave


@weave.op
def square(x: int) -> int:
    return x * x


def main(project: str, count: int) -> dict:
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
