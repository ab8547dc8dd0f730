"""A short serverless RL loop through the official OpenPipe ART client, for
test/clients/art-client.test.ts (docs/art-client.md describes what the client sends).

Usage: art_training_loop.py train  BASE_URL PROJECT NAME STEPS
           register the model, then STEPS times: rollouts through model.openai_client()
           (logprobs=True) -> toy reward -> backend.train -> model.log (local); then
           model.delete_checkpoints() (keeps the latest and the best "val/reward" step)
       art_training_loop.py captured BASE_URL PROJECT NAME
           one step whose rollouts are recorded by `with art.Trajectory() as traj:` (ART sends them
           as `exchanges`, without messages_and_choices) -> backend.train
       art_training_loop.py delete BASE_URL PROJECT NAME
           register the same model again (return_existing) and backend.delete(model)

The API key comes from HEDDLE_API_KEY and is passed to ServerlessBackend(api_key=...). WANDB_API_KEY
is left unset on purpose: with it ART would also try to start a W&B run. The last stdout line is
the JSON result.
"""

import asyncio
import json
import os
import sys

import art
from art.serverless.backend import ServerlessBackend

BASE_MODEL = "OpenPipe/Qwen3-14B-Instruct"
SCENARIOS = ["Write the letter a.", "Say aaa."]
ROLLOUTS_PER_GROUP = 4
MAX_TOKENS = 8


def toy_reward(text: str) -> float:
    """Deterministic: the share of ASCII letters in the sampled text. The untrained byte-level policy
    samples near-uniform bytes, so rewards vary within a group and some are exactly 0.0, which ART
    then sends without a `reward` key (docs/art-client.md, "Trajectory groups on the wire")."""
    return sum(1 for c in text if c.isascii() and c.isalpha()) / len(text) if text else 0.0


async def rollout(model: art.TrainableModel, prompt: str, seed: int, stats: dict) -> art.Trajectory:
    messages = [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": prompt}]
    client = model.openai_client()
    completion = await client.chat.completions.create(
        model=model.get_inference_name(),
        messages=messages,
        max_tokens=MAX_TOKENS,
        temperature=1.0,
        logprobs=True,
        seed=seed,
    )
    choice = completion.choices[0]
    stats["completions"] += 1
    if choice.logprobs is not None and choice.logprobs.content:
        stats["choices_with_logprobs"] += 1
        stats["logprob_tokens"] += len(choice.logprobs.content)
    text = choice.message.content or ""
    reward = toy_reward(text)
    stats["zero_rewards"] += reward == 0.0
    return art.Trajectory(
        messages_and_choices=[*messages, choice],
        reward=reward,
        metrics={"chars": len(text)},
    )


async def gather(model: art.TrainableModel, step: int, split: str, stats: dict) -> list[art.TrajectoryGroup]:
    base = (step * 1000) + (500 if split == "val" else 0)
    return await art.gather_trajectory_groups(
        [
            # a list, not a generator: a lazy generator would see only the last `prompt`/`g`
            art.trajectory_group(
                [rollout(model, prompt, base + g * ROLLOUTS_PER_GROUP + i, stats) for i in range(ROLLOUTS_PER_GROUP)]
            )
            for g, prompt in enumerate(SCENARIOS)
        ],
        pbar_desc=None,
    )


async def captured_rollout(model: art.TrainableModel, prompt: str, seed: int, stats: dict) -> art.Trajectory:
    with art.Trajectory() as traj:
        completion = await model.openai_client().chat.completions.create(
            model=model.get_inference_name(),
            messages=[{"role": "user", "content": prompt}],
            max_tokens=MAX_TOKENS,
            logprobs=True,
            seed=seed,
        )
        stats["completions"] += 1
        traj.reward = toy_reward(completion.choices[0].message.content or "")
    return traj


async def captured(base_url: str, project: str, name: str) -> dict:
    backend = ServerlessBackend(api_key=os.environ["HEDDLE_API_KEY"], base_url=base_url)
    job_ids = record_job_ids(backend)
    model = art.TrainableModel(name=name, run_name=name, project=project, base_model=BASE_MODEL, base_path=os.path.join(os.getcwd(), ".art"))
    await model.register(backend)
    stats = {"completions": 0}
    groups = await art.gather_trajectory_groups(
        [
            art.trajectory_group([captured_rollout(model, prompt, 100 + g * ROLLOUTS_PER_GROUP + i, stats) for i in range(ROLLOUTS_PER_GROUP)])
            for g, prompt in enumerate(SCENARIOS)
        ],
        pbar_desc=None,
    )
    sent = [t.model_dump(mode="json") for g in groups for t in g.trajectories]
    result = await backend.train(model, groups)
    await backend.close()
    return {
        "model_id": model.id,
        "step": result.step,
        "job_ids": job_ids,
        "stats": stats,
        "sent_exchanges": sum(1 for t in sent if "exchanges" in t and "messages_and_choices" not in t),
        "rewards": [t.reward for g in groups for t in g.trajectories],
    }


def mean_reward(groups: list[art.TrajectoryGroup]) -> float:
    rewards = [t.reward for g in groups for t in g.trajectories]
    return sum(rewards) / len(rewards) if rewards else 0.0


def record_job_ids(backend: ServerlessBackend) -> list[str]:
    """Keeps the ids of the training jobs the backend creates (the client does not expose them)."""
    ids: list[str] = []
    jobs = backend._client.training_jobs
    create = jobs.create

    async def recording_create(**kwargs):
        job = await create(**kwargs)
        ids.append(job.id)
        return job

    jobs.create = recording_create
    return ids


async def train(base_url: str, project: str, name: str, steps: int) -> dict:
    backend = ServerlessBackend(api_key=os.environ["HEDDLE_API_KEY"], base_url=base_url)
    job_ids = record_job_ids(backend)
    model = art.TrainableModel(name=name, run_name=name, project=project, base_model=BASE_MODEL, base_path=os.path.join(os.getcwd(), ".art"))
    await model.register(backend)
    stats = {"completions": 0, "choices_with_logprobs": 0, "logprob_tokens": 0, "zero_rewards": 0}
    start_step = await model.get_step()
    results = []
    for step in range(start_step, steps):
        train_groups = await gather(model, step, "train", stats)
        result = await backend.train(model, train_groups, learning_rate=1e-5)
        await model.log(train_groups, metrics=result.metrics, step=result.step, split="train")
        val_groups = await gather(model, step, "val", stats)
        await model.log(val_groups, step=result.step, split="val")
        results.append({
            "step": result.step,
            "artifact_name": result.artifact_name,
            "train_reward": mean_reward(train_groups),
            "val_reward": mean_reward(val_groups),
            "metric_keys": sorted(result.metrics),
            "inference_name": model.get_inference_name(),
        })
    final_step = await model.get_step()
    await model.delete_checkpoints()
    await backend.close()
    return {
        "model_id": model.id,
        "entity": model.entity,
        "start_step": start_step,
        "final_step": final_step,
        "job_ids": job_ids,
        "steps": results,
        "stats": stats,
    }


async def delete(base_url: str, project: str, name: str) -> dict:
    backend = ServerlessBackend(api_key=os.environ["HEDDLE_API_KEY"], base_url=base_url)
    model = art.TrainableModel(name=name, run_name=name, project=project, base_model=BASE_MODEL, base_path=os.path.join(os.getcwd(), ".art"))
    await model.register(backend)
    step = await model.get_step()
    await backend.delete(model)
    await backend.close()
    return {"model_id": model.id, "step_before_delete": step}


def main() -> None:
    mode, base_url, project, name = sys.argv[1:5]
    if mode == "train":
        out = asyncio.run(train(base_url, project, name, int(sys.argv[5])))
    elif mode == "captured":
        out = asyncio.run(captured(base_url, project, name))
    elif mode == "delete":
        out = asyncio.run(delete(base_url, project, name))
    else:
        raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
