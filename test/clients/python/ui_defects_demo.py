"""Writes data for the browser test test/ui/client-defects.test.ts with the official weave client.

Usage: ui_defects_demo.py PROJECT

A published Dataset `questions` of eight rows and a smaller `questions-few` (its first three);
one weave.Evaluation over `questions` run for two weave.Models, and one over `questions-few`; an op
`answer` whose code changed between its two calls (two versions); an op `handle` that raised
a KeyError; a call with a 👍 reaction and a note. The last stdout line is a JSON object with the ids.
"""

import asyncio
import json
import sys

import weave
from calculator import Calculator, exact

QUESTIONS = [
    {"question": f"{a}+{b}", "expected": str(a + b)}
    for a, b in [(2, 2), (3, 3), (4, 1), (9, 9), (7, 5), (1, 1), (6, 2), (8, 3)]
]


@weave.op(name="answer")
def answer_first(question: str) -> str:
    return question.strip()


@weave.op(name="answer")
def answer_second(question: str) -> str:
    return question.strip().lower()


@weave.op
def handle(payload: dict) -> str:
    return payload["user_id"]


def evaluate(client, evaluation, model, label: str, known: set) -> str:
    asyncio.run(evaluation.evaluate(model, __weave={"display_name": label}))
    client.flush()
    roots = [
        c.id
        for c in client.get_calls(filter={"trace_roots_only": True})
        if "Evaluation.evaluate" in (c.op_name or "") and c.id not in known
    ]
    known.add(roots[0])
    return roots[0]


def main() -> None:
    project = sys.argv[1]
    client = weave.init(project)
    questions = weave.Dataset(name="questions", rows=QUESTIONS)
    few = weave.Dataset(name="questions-few", rows=QUESTIONS[:3])
    right = {row["question"]: row["expected"] for row in QUESTIONS}
    small = Calculator(name="model-small", answers={**right, "9+9": "19"})
    large = Calculator(name="model-large", answers=right)
    known: set = set()
    qa = weave.Evaluation(name="qa-eval", dataset=questions, scorers=[exact])
    qa_few = weave.Evaluation(name="qa-few", dataset=few, scorers=[exact])
    runs = {
        "small": evaluate(client, qa, small, "qa small", known),
        "large": evaluate(client, qa, large, "qa large", known),
        "few": evaluate(client, qa_few, large, "qa few", known),
    }
    answer_first("  What is 2+2?  ")
    answer_second("  What is 2+2?  ")
    # Op.call records the KeyError on the call and hands the call back instead of raising
    _, failed = handle.call({"name": "no id"})
    _, reacted = answer_second.call("Reacted to")
    reacted.feedback.add_reaction("👍")
    reacted.feedback.add_note("checked by hand")
    client.flush()
    result = {"evals": runs, "failed": failed.id, "reacted": reacted.id, "questions": QUESTIONS}
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
