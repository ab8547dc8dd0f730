"""Writes data for the browser test test/ui/clients.test.ts with the official weave client.

Usage: ui_demo.py PROJECT

A traced pipeline whose child is a chat completion (messages in, OpenAI-shaped choices out), an op
that returns a PIL image, a published object and a published op. The client prints its own links
("View Weave data at …", "🍩 …/r/call/…", "Published to …"); the test reads them from the output.
The last stdout line is a JSON object with the ids and digests.
"""

import json
import sys

import weave
from PIL import Image


@weave.op
def chat_completion(messages: list, model: str) -> dict:
    return {
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Your parcel left the depot this morning."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 21, "completion_tokens": 9, "total_tokens": 30},
    }


@weave.op
def draw_badge(size: int) -> Image.Image:
    img = Image.new("RGB", (size, size))
    for x in range(size):
        for y in range(size):
            img.putpixel((x, y), (x * 8 % 256, y * 8 % 256, 160))
    return img


@weave.op
def support_turn(customer_id: str, question: str) -> dict:
    reply = chat_completion(
        [
            {"role": "system", "content": "You are a courteous support agent."},
            {"role": "user", "content": question},
        ],
        "gpt-4o-mini",
    )
    badge = draw_badge(32)
    return {"answer": reply["choices"][0]["message"]["content"], "badge": badge}


def main() -> None:
    project = sys.argv[1]
    client = weave.init(project)
    support_turn("cust-7731", "Where is my parcel?")
    support_turn("cust-0001", "How do I change my address?")
    prompt = weave.publish(weave.StringPrompt("Answer briefly: {question}"), name="support-prompt")
    op_ref = weave.publish(chat_completion, name="chat_completion")
    client.flush()
    calls = [
        {
            "id": c.id,
            "trace_id": c.trace_id,
            "op_name": c.op_name,
            "inputs": {k: str(v) for k, v in (c.inputs or {}).items()},
        }
        for c in client.get_calls()
    ]
    result = {
        "entity": client.entity,
        "project": client.project,
        "calls": calls,
        "prompt_digest": prompt.digest,
        "op_digest": op_ref.digest,
    }
    sys.stdout.write(json.dumps(result, default=str) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
