"""Evaluations through the official weave client, for test/clients/python-evaluation.test.ts.

Usage: eval_demo.py PROJECT

Runs a declarative weave.Evaluation of a weave.Model over a published dataset, and an
imperative EvaluationLogger run, then prints both root call ids with the summaries the client
computed itself. The last stdout line is the JSON result.
"""

import asyncio
import json
import sys

import weave
from weave import EvaluationLogger

ROWS = [
    {"question": "2+2", "expected": "4"},
    {"question": "3+3", "expected": "6"},
    {"question": "capital of France", "expected": "Paris"},
]


class Calculator(weave.Model):
    answers: dict

    @weave.op
    def predict(self, question: str) -> str:
        return self.answers.get(question, "?")


@weave.op
def exact(expected: str, output: str) -> bool:
    return expected == output


@weave.op
def closeness(expected: str, output: str) -> dict:
    return {"score": 1.0 if expected == output else 0.25, "length_ok": len(output) <= len(expected)}


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
    print(
        json.dumps(
            {
                "declarative_id": roots[0] if roots else None,
                "declarative_summary": declarative_summary,
                "logger_id": logger_id,
                "logger_summary": logged.output,
            },
            default=str,
        )
    )


if __name__ == "__main__":
    main()
