"""The model and scorer the evaluation demos share (eval_demo.py, ui_eval_demo.py, ui_defects_demo.py).

A `Calculator` answers from its `answers` table ("?" for a question it lacks); `exact` scores an
answer against the row's `expected`. Imported from the scripts' own folder, which Python puts first
on the path of a script it runs.
"""

import weave


class Calculator(weave.Model):
    answers: dict

    @weave.op
    def predict(self, question: str) -> str:
        return self.answers.get(question, "?")


@weave.op
def exact(expected: str, output: str) -> bool:
    return expected == output
