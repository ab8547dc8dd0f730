"""Trajectory and SFT tokenization with the tiny local tokenizer's chat template."""

import math
import unittest

from heddle_worker.tiny import build_tokenizer
from heddle_worker.trajectory import Renderer, TrainingContentError, tokenize_sft_example, tokenize_trajectory

TOK = build_tokenizer()
R = Renderer(TOK)
USER = {"role": "user", "content": "Say a letter."}


def choice(ids, lps, prompt_ids=None, content="x"):
    c = {"message": {"role": "assistant", "content": content}, "finish_reason": "stop",
         "logprobs": {"content": [{"token": f"token_id:{i}", "logprob": lp} for i, lp in zip(ids, lps)]}}
    if prompt_ids is not None:
        c["prompt_token_ids"] = prompt_ids
    return c


class TrajectoryTest(unittest.TestCase):
    def test_client_token_ids_and_prompt_ids_win(self):
        prompt = [7, 8, 9]
        (h,) = tokenize_trajectory({"messages_and_choices": [USER, choice([40, 41], [-0.5, -1.5], prompt)]},
                                   R, False, 1000, "t")
        self.assertEqual(h.ids, [7, 8, 9, 40, 41])
        self.assertEqual(h.mask, [0, 0, 0, 1, 1])
        self.assertTrue(all(math.isnan(x) for x in h.old[:3]))
        self.assertEqual(h.old[3:], [-0.5, -1.5])

    def test_template_renders_context_between_turns(self):
        first = R.render([USER], None, True)
        items = [USER, choice([40], [-1.0]), {"role": "user", "content": "Again."}, choice([41], [-2.0])]
        (h,) = tokenize_trajectory({"messages_and_choices": items}, R, False, 1000, "t")
        self.assertEqual(h.ids[: len(first)], first)
        self.assertEqual(h.ids[len(first)], 40)
        # between the turns: the template's tail after the first assistant message, ending with the
        # generation prompt of the second
        msgs = [USER, {"role": "assistant", "content": "x"}, {"role": "user", "content": "Again."}]
        tail = R.render(msgs, None, True)[len(R.render(msgs[:2], None, False)):]
        self.assertEqual(h.ids[len(first) + 1 : -1], tail)
        self.assertEqual(h.ids[-1], 41)
        self.assertEqual(sum(h.mask), 2)

    def test_untrainable_and_too_long(self):
        # no logprobs: nothing to train unless allowed
        plain = {"messages_and_choices": [USER, {"role": "assistant", "content": "ab"}]}
        self.assertEqual(tokenize_trajectory(plain, R, False, 1000, "t"), [])
        (h,) = tokenize_trajectory(plain, R, True, 1000, "t")
        self.assertEqual(h.ids[-1], TOK.eos_token_id)
        self.assertTrue(all(math.isnan(x) for x in h.old))
        with self.assertRaises(TrainingContentError):
            tokenize_trajectory({"messages_and_choices": [USER, choice([40] * 50, [-1.0] * 50)]}, R, False, 20, "t")

    def test_sft_masks_assistant_turns(self):
        ex = tokenize_sft_example({"messages": [USER, {"role": "assistant", "content": "a"}]}, R, 1000, 0)
        start = len(R.render([USER], None, True))
        self.assertEqual(ex.mask[:start], [0] * start)
        self.assertEqual(set(ex.mask[start:]), {1})
        self.assertIn(TOK.convert_tokens_to_ids("<|im_end|>"), [i for i, m in zip(ex.ids, ex.mask) if m])


if __name__ == "__main__":
    unittest.main()
