"""Feedback and costs through the official weave client, for test/clients/python-feedback.test.ts.

Usage: feedback_demo.py trace PROJECT          trace one op whose output names a model and usage,
                                                add a reaction, a note and a custom feedback
       feedback_demo.py read PROJECT CALL_ID   read the call back with costs and feedback

The last stdout line is the JSON result.
"""

import json
import sys

import weave


@weave.op
def chat(prompt: str) -> dict:
    # weave puts `usage` of an output that also names `model` into summary.usage[model]
    return {
        "model": "gpt-4o-mini",
        "usage": {"prompt_tokens": 1000, "completion_tokens": 500, "total_tokens": 1500},
        "text": prompt.upper(),
    }


def view(call) -> dict:
    summary = dict(call.summary or {})
    weave_summary = dict(summary.get("weave") or {})
    feedback = [
        {"feedback_type": f["feedback_type"], "payload": f["payload"]}
        for f in (weave_summary.get("feedback") or [])
    ]
    return {
        "id": call.id,
        "usage": summary.get("usage"),
        "costs": weave_summary.get("costs"),
        "feedback": feedback,
    }


def trace(project: str) -> dict:
    client = weave.init(project)
    _, call = chat.call("hello")
    client.flush()
    reaction_id = call.feedback.add_reaction("👍")
    note_id = call.feedback.add_note("looks right")
    custom_id = call.feedback.add("custom", {"score": 0.9, "label": "good"})
    # the client sends feedback in background batches (/feedback/batch/create)
    client.flush()
    listed = [view(c) for c in client.get_calls(include_feedback=True, include_costs=True)]
    return {"call_id": call.id, "feedback_ids": [reaction_id, note_id, custom_id], "calls": listed}


def read(project: str, call_id: str) -> dict:
    client = weave.init(project)
    return {"call": view(client.get_call(call_id, include_costs=True, include_feedback=True))}


def main() -> None:
    mode, project = sys.argv[1], sys.argv[2]
    result = trace(project) if mode == "trace" else read(project, sys.argv[3])
    sys.stdout.write(json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
