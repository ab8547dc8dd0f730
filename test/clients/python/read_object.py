"""Reads a dataset's latest version back with the official weave client (test/ui/client-flows.test.ts).

Usage: read_dataset.py PROJECT NAME

The last stdout line is a JSON object: the version's digest and its rows as plain dicts.
"""

import json
import sys

import weave


def main() -> None:
    project, name = sys.argv[1], sys.argv[2]
    weave.init(project)
    ref = weave.ref(f"{name}:latest")
    dataset = ref.get()
    rows = [dict(row) for row in dataset.rows]
    sys.stdout.write(json.dumps({"digest": dataset.ref.digest, "rows": rows}, default=str) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
