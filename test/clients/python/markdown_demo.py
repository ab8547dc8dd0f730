"""Writes data for test/ui/everyday-clients checks: an op that returns `weave.Markdown`.

Usage: markdown_demo.py PROJECT
The last stdout line is a JSON object with the call id.
"""

import json
import sys

import weave


@weave.op
def release_notes(version: str) -> weave.Markdown:
    return weave.Markdown(
        f"# Release {version}\n\n- **Faster** traces\n- [docs](https://example.com/docs)\n\n"
        '<img src=x onerror="window.__xss=1"><script>window.__xss=1</script>'
    )


def main() -> None:
    client = weave.init(sys.argv[1])
    release_notes("1.2")
    client.flush()
    calls = [{"id": c.id, "op_name": c.op_name} for c in client.get_calls()]
    sys.stdout.write(json.dumps({"calls": calls}) + "\n")
    sys.stdout.flush()


main()
