"""Objects, tables and refs through the official weave client, for test/clients/python-objects.test.ts.

Usage: objects_demo.py PROJECT

Publishes a Dataset, a weave.Model subclass and a prompt, reads each back through weave.ref(uri).get(),
resolves a dataset row ref, and calls an op with the published model as input.
The last stdout line is the JSON result.
"""

import json
import sys

import weave


class Scaler(weave.Model):
    factor: float
    label: str

    @weave.op
    def predict(self, x: int) -> float:
        return x * self.factor


@weave.op
def describe(model: Scaler, x: int) -> dict:
    return {"label": model.label, "scaled": x * model.factor}


def plain_rows(dataset) -> list:
    return [dict(row) for row in dataset.rows]


def main() -> None:
    project = sys.argv[1]
    client = weave.init(project)
    rows = [{"q": "2+2", "a": 4}, {"q": "capital of France", "a": "Paris"}, {"q": "pi", "a": 3.5}]
    dataset = weave.Dataset(name="qa", rows=rows)
    ds_ref = weave.publish(dataset, name="qa")
    model = Scaler(factor=2.5, label="double-and-a-half")
    model_ref = weave.publish(model, name="scaler")
    prompt = weave.StringPrompt("You are {name}.")
    prompt_ref = weave.publish(prompt, name="greeting")

    got_ds = weave.ref(ds_ref.uri()).get()
    got_model = weave.ref(model_ref.uri()).get()
    got_prompt = weave.ref(prompt_ref.uri()).get()

    # the row ref of the second dataset row, as the UI and evaluations build it
    first_rows = list(got_ds.rows)
    row_ref = first_rows[1].ref.uri() if getattr(first_rows[1], "ref", None) is not None else None
    row_val = dict(weave.ref(row_ref).get()) if row_ref else None

    output = describe(got_model, 4)
    client.flush()
    print(
        json.dumps(
            {
                "dataset_uri": ds_ref.uri(),
                "model_uri": model_ref.uri(),
                "prompt_uri": prompt_ref.uri(),
                "dataset_rows": plain_rows(got_ds),
                "model": {"factor": got_model.factor, "label": got_model.label, "predict": got_model.predict(2)},
                "prompt": {"content": got_prompt.content, "formatted": got_prompt.format(name="Heddle")},
                "row_ref": row_ref,
                "row_val": row_val,
                "op_output": output,
            }
        )
    )


if __name__ == "__main__":
    main()
