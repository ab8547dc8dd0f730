"""Writes data for the browser test test/ui/client-flows.test.ts with the official weave client.

Usage: ui_flows_demo.py PROJECT

Four traced ticket classifications (one with a 👍 reaction, one with a note), a chat completion
(messages in, OpenAI-shaped choices out), a published Dataset,
a weave.Model subclass whose predict runs twice, and a MessagesPrompt published in two versions.
The last stdout line is a JSON object with the call ids and the refs.
"""

import json
import sys

import weave

TICKETS = [
    ("I want a refund for order 7", "cust-1"),
    ("Where is my parcel?", "cust-2"),
    ("Refund please, the kettle broke", "cust-3"),
    ("How do I change my address?", "cust-4"),
]


@weave.op
def classify(ticket: str, customer_id: str) -> dict:
    label = "refund" if "refund" in ticket.lower() else "question"
    return {"label": label, "confidence": 0.9 if label == "refund" else 0.6}


@weave.op
def chat(messages: list, model: str, temperature: float = 0.0) -> dict:
    return {
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Refunds take five working days."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 18, "completion_tokens": 6, "total_tokens": 24},
    }


class TicketModel(weave.Model):
    model_name: str
    threshold: float

    @weave.op
    def predict(self, ticket: str) -> dict:
        return classify(ticket, "model")


def main() -> None:
    project = sys.argv[1]
    client = weave.init(project)
    calls = []
    for ticket, customer in TICKETS:
        _, call = classify.call(ticket, customer)
        calls.append(call)
    calls[0].feedback.add_reaction("👍")
    calls[2].feedback.add_note("the label is right, the confidence is low")
    _, chat_call = chat.call(
        [
            {"role": "system", "content": "You are a support agent."},
            {"role": "user", "content": "How long do refunds take?"},
        ],
        "gpt-4o-mini",
    )
    dataset = weave.publish(
        weave.Dataset(
            name="tickets",
            rows=[
                {"ticket": "I want a refund for order 7", "label": "refund"},
                {"ticket": "Where is my parcel?", "label": "question"},
                {"ticket": "How do I change my address?", "label": "question"},
            ],
        ),
        name="tickets",
    )
    model = TicketModel(model_name="keyword-v1", threshold=0.5)
    model.predict("Refund me now")
    model.predict("Is the shop open on Sunday?")
    # the first predict saved the model under its class name; publishing it again returns that ref
    model_ref = weave.publish(model)
    system = "You triage support tickets.\nAnswer with one label."
    weave.publish(
        weave.MessagesPrompt([{"role": "system", "content": system}, {"role": "user", "content": "{ticket}"}]),
        name="triage-prompt",
    )
    weave.publish(
        weave.MessagesPrompt(
            [
                {"role": "system", "content": system.replace("one label", "one label and a reason")},
                {"role": "user", "content": "{ticket}"},
            ]
        ),
        name="triage-prompt",
    )
    client.flush()
    result = {
        "classify": [c.id for c in calls],
        "chat": chat_call.id,
        "dataset_digest": dataset.digest,
        "model_uri": model_ref.uri(),
    }
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
