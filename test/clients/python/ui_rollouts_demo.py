"""Rollouts of a training loop traced by the official weave client, for test/ui/training.test.ts.

Usage: ui_rollouts_demo.py PROJECT MODEL STEPS

For each step, runs four rollouts (two groups of two) of a weave op inside
weave.attributes({"step": step}), the way an RL loop marks which training step its rollouts
belong to; each rollout calls a child op standing in for the chat completion. Prints the rollouts'
display names by step. The last stdout line is the JSON result.
"""

import json
import sys

import weave


@weave.op
def policy(model: str, prompt: str) -> str:
    return "B2"


@weave.op
def rollout(model: str, step: int, group: int, index: int) -> dict:
    move = policy(model, "Your move.")
    return {"move": move, "reward": round(0.2 + 0.1 * step + 0.05 * group - 0.05 * index, 4)}


def main() -> None:
    project, model, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = weave.init(project)
    names: dict[str, list[str]] = {}
    for step in range(steps):
        names[str(step)] = []
        with weave.attributes({"step": step}):
            for group in range(2):
                for index in range(2):
                    display = f"rollout step {step} group {group} #{index}"
                    rollout(model, step, group, index, __weave={"display_name": display})
                    names[str(step)].append(display)
    client.flush()
    print(json.dumps({"rollouts": names}))


if __name__ == "__main__":
    main()
