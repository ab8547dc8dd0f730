"""Two evaluations through the official weave client, for test/ui/evals-client.test.ts.

Usage: ui_eval_demo.py PROJECT

Runs one declarative weave.Evaluation over a published dataset for two weave.Models that answer
differently in exactly one row ("3+3"), and prints both root call ids (small first). The last
stdout line is the JSON result.
"""

import asyncio
import json
import sys

import weave
from calculator import Calculator, exact

ROWS = [
    {"question": "2+2", "expected": "4"},
    {"question": "3+3", "expected": "6"},
    {"question": "capital of France", "expected": "Paris"},
]


def main() -> None:
    project = sys.argv[1]
    client = weave.init(project)
    dataset = weave.Dataset(name="arith", rows=ROWS)
    evaluation = weave.Evaluation(name="arith_eval", dataset=dataset, scorers=[exact])
    ids = []
    for name, answers in [
        ("calc_small", {"2+2": "4", "3+3": "7", "capital of France": "Paris"}),
        ("calc_large", {"2+2": "4", "3+3": "6", "capital of France": "Paris"}),
    ]:
        model = Calculator(name=name, answers=answers)
        asyncio.run(evaluation.evaluate(model, __weave={"display_name": f"arith {name}"}))
        client.flush()
        known = set(ids)
        roots = [
            c.id
            for c in client.get_calls(filter={"trace_roots_only": True})
            if "Evaluation.evaluate" in (c.op_name or "") and c.id not in known
        ]
        ids.append(roots[0] if roots else None)
    print(json.dumps({"small_id": ids[0], "large_id": ids[1]}))


if __name__ == "__main__":
    main()
