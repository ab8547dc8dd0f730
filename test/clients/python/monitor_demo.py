"""Online monitors and call.apply_scorer through the official weave client, for
test/clients/python-monitor.test.ts.

Usage: monitor_demo.py PROJECT

Publishes an LLMAsAJudgeScorer whose judge model Heddle serves (`judge` on the OpenAI-compatible
provider the test starts) and a `weave.Monitor` on op `solve`, activates it, calls `solve` (and
an op the monitor does not name), then polls `client.get_calls(include_feedback=True)` until
Heddle's runnable feedback is on every `solve` call. Then applies a local scorer with
`call.apply_scorer` and reads that feedback back. The last stdout line is the JSON result.
"""

import asyncio
import json
import os
import sys
import time
import types

import weave
from weave import Scorer
from weave.flow.llm_structured_model import LLMStructuredCompletionModel

# `weave.scorers`' __init__ imports every built-in scorer, some of which need the `weave[scorers]`
# extras (numpy, …) the tests' virtualenv does not hold; load only the LLM judge's module.
_scorers = types.ModuleType("weave.scorers")
_scorers.__path__ = [os.path.join(os.path.dirname(weave.__file__), "scorers")]
sys.modules.setdefault("weave.scorers", _scorers)
from weave.scorers.llm_as_a_judge_scorer import LLMAsAJudgeScorer  # noqa: E402


@weave.op
def solve(question: str, expected: int) -> dict:
    a, b = question.split("+")
    return {"answer": int(a) + int(b)}


@weave.op
def unwatched(question: str) -> str:
    return question


class ExactAnswer(Scorer):
    @weave.op
    def score(self, *, output: dict, expected: int) -> dict:
        return {"correct": output["answer"] == expected}


def feedback_of(call) -> list:
    weave_summary = dict((call.summary or {}).get("weave") or {})
    return [
        {
            "feedback_type": f["feedback_type"],
            "payload": f["payload"],
            "runnable_ref": f.get("runnable_ref"),
            "trigger_ref": f.get("trigger_ref"),
        }
        for f in (weave_summary.get("feedback") or [])
    ]


def main(project: str) -> dict:
    client = weave.init(project)
    judge = LLMAsAJudgeScorer(
        name="correctness",
        model=LLMStructuredCompletionModel(
            llm_model_id="judge",
            default_params={"messages_template": [], "response_format": "json_object"},
        ),
        scoring_prompt="Expected {expected}; got {output}",
    )
    monitor = weave.Monitor(
        name="sum-monitor",
        description="scores every solve call",
        sampling_rate=1.0,
        op_names=["solve"],
        query={"$expr": {"$gt": [{"$getField": "started_at"}, {"$literal": 0}]}},
        scorers=[judge],
    )
    monitor_ref = monitor.activate()
    client.flush()

    questions = [("2+3", 5), ("1+1", 2), ("4+4", 8)]
    for q, expected in questions:
        solve(q, expected)
    unwatched("not monitored")
    client.flush()

    deadline = time.time() + 60
    while True:
        calls = list(client.get_calls(filter={"op_names": [solve.ref.uri()]}, include_feedback=True))
        monitored = {c.id: feedback_of(c) for c in calls}
        if len(calls) == len(questions) and all(monitored.values()):
            break
        if time.time() > deadline:
            raise SystemExit(f"timed out waiting for monitor feedback: {monitored}")
        time.sleep(0.25)

    others = [feedback_of(c) for c in client.get_calls(filter={"op_names": [unwatched.ref.uri()]}, include_feedback=True)]

    # a scorer run by the client on one call, recorded as runnable feedback
    _, scored_call = solve.call("5+5", 10)
    result = asyncio.run(scored_call.apply_scorer(ExactAnswer()))
    client.flush()
    applied = None
    deadline = time.time() + 30
    while applied is None:
        again = client.get_call(scored_call.id, include_feedback=True)
        mine = [f for f in feedback_of(again) if f["feedback_type"] == "wandb.runnable.ExactAnswer"]
        if mine:
            applied = mine
        elif time.time() > deadline:
            raise SystemExit("timed out waiting for apply_scorer feedback")
        else:
            time.sleep(0.25)

    stored = client.get(monitor_ref)
    return {
        "monitor_ref": monitor_ref.uri(),
        "monitor": {
            "active": stored.active,
            "sampling_rate": stored.sampling_rate,
            "op_names": list(stored.op_names),
        },
        "monitored": monitored,
        "others": others,
        "apply_scorer": {"call_id": scored_call.id, "result": result.result, "feedback": applied},
    }


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1]), default=str))
