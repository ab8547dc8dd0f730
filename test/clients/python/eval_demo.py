"""Evaluations through the official weave client, for test/clients/python-evaluation.test.ts.

Usage: eval_demo.py PROJECT

Runs a declarative weave.Evaluation of a weave.Model over a published dataset, and an
imperative EvaluationLogger run, then prints both root call ids with the summaries the client
computed itself. Then applies an op scorer and a class scorer to a plain call with
call.apply_scorer and reads the call back with get_calls(include_feedback=True). The last stdout
line is the JSON result.
"""

import asyncio
import json
import sys

import weave
from calculator import Calculator, exact
from weave import EvaluationLogger

ROWS = [
    {"question": "2+2", "expected": "4"},
    {"question": "3+3", "expected": "6"},
    {"question": "capital of France", "expected": "Paris"},
]


@weave.op
def closeness(expected: str, output: str) -> dict:
    return {"score": 1.0 if expected == output else 0.25, "length_ok": len(output) <= len(expected)}


class LengthCheck(weave.Scorer):
    max_len: int

    @weave.op
    def score(self, output: str) -> dict:
        return {"short": len(output) <= self.max_len, "length": len(output)}


@weave.op
def solve(question: str) -> str:
    return {"2+2": "4"}.get(question, "?")


def apply_scorers(client) -> dict:
    """call.apply_scorer with an op scorer and a published class scorer; the feedback read back."""
    _, call = solve.call("2+2")
    exact_result = asyncio.run(call.apply_scorer(exact, additional_scorer_kwargs={"expected": "4"}))
    length = LengthCheck(name="length_check", max_len=3)
    weave.publish(length, name="length_check")
    length_result = asyncio.run(call.apply_scorer(length))
    client.flush()
    [read] = list(client.get_calls(filter={"call_ids": [call.id]}, include_feedback=True))
    feedback = (read.summary or {}).get("weave", {}).get("feedback", [])
    return {
        "call_id": call.id,
        "results": {
            "exact": exact_result.result,
            "length_check": length_result.result,
        },
        "score_call_ids": {
            "exact": exact_result.score_call.id,
            "length_check": length_result.score_call.id,
        },
        "feedback": [
            {k: f.get(k) for k in ("feedback_type", "payload", "runnable_ref", "call_ref")} for f in feedback
        ],
    }


def main() -> None:
    project = sys.argv[1]
    client = weave.init(project)
    dataset = weave.Dataset(name="arith", rows=ROWS)
    model = Calculator(answers={"2+2": "4", "3+3": "7", "capital of France": "Paris"})
    evaluation = weave.Evaluation(name="arith_eval", dataset=dataset, scorers=[exact, closeness])
    declarative_summary = asyncio.run(evaluation.evaluate(model))

    logger = EvaluationLogger(model="logged_model", dataset="logged_dataset")
    for row, correct, quality in [(ROWS[0], True, 0.9), (ROWS[1], False, 0.2)]:
        prediction = logger.log_prediction(inputs=row, output=row["expected"] if correct else "?")
        prediction.log_score("correct", correct)
        prediction.log_score("quality", quality)
        prediction.finish()
    logger.log_summary()
    logger_id = logger._evaluate_call.id
    client.flush()

    roots = [
        c.id
        for c in client.get_calls(filter={"trace_roots_only": True})
        if "Evaluation.evaluate" in (c.op_name or "") and c.id != logger_id
    ]
    logged = client.get_call(logger_id)
    applied = apply_scorers(client)
    print(
        json.dumps(
            {
                "declarative_id": roots[0] if roots else None,
                "declarative_summary": declarative_summary,
                "logger_id": logger_id,
                "logger_summary": logged.output,
                "applied": applied,
            },
            default=str,
        )
    )


if __name__ == "__main__":
    main()
