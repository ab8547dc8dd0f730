"""A call the browser watches while it runs (test/ui/client-defects.test.ts), by the official client.

Usage: live_call_demo.py PROJECT

After weave.init it prints "READY" and waits for a line on stdin; then runs op `watched` (display
name "Watched call"), which prints "STARTED" and waits for another line before it returns. The op
is marked `eager_call_start`, as a Weave user marks a long-running op: weave 0.54 otherwise holds a
call's start until its end arrives and sends both together. The last stdout line is the JSON result.
"""

import json
import sys

import weave


@weave.op(eager_call_start=True, call_display_name="Watched call")
def watched(question: str) -> str:
    print("STARTED", flush=True)
    sys.stdin.readline()
    return "done"


def main() -> None:
    client = weave.init(sys.argv[1])
    print("READY", flush=True)
    sys.stdin.readline()
    _, call = watched.call("watched while running")
    client.flush()
    print(json.dumps({"id": call.id}), flush=True)


if __name__ == "__main__":
    main()
