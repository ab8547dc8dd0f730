"""Reads an object's latest version back with the official weave client (test/ui/client-flows.test.ts).

Usage: read_object.py PROJECT NAME

The last stdout line is a JSON object: the version's digest, the class the client made of it, and
its rows (a Dataset) or its messages (a MessagesPrompt) as plain data.
"""

import json
import sys

import weave


def main() -> None:
    project, name = sys.argv[1], sys.argv[2]
    weave.init(project)
    obj = weave.ref(f"{name}:latest").get()
    result = {"digest": obj.ref.digest, "class": type(obj).__name__}
    if isinstance(obj, weave.Dataset):
        result["rows"] = [dict(row) for row in obj.rows]
    if isinstance(obj, weave.MessagesPrompt):
        result["messages"] = [dict(m) for m in obj.messages]
    sys.stdout.write(json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
