/**
 * SFT training data (docs/spec/training.md §4.9): the service reads URLs it can resolve itself. Our
 * choice: `data:` URLs whose content is the `train.jsonl` text (one `{"messages": …}` object per
 * line). Anything else is unresolvable, and the job fails with `training_failed`.
 */
export class TrainingDataError extends Error {}

function decodeDataUrl(url: string): string {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0)
    throw new TrainingDataError(
      `Cannot resolve training data URL: ${url.slice(0, 100)} (only data: URLs holding train.jsonl lines are supported)`,
    );
  const meta = url.slice(5, comma);
  const payload = url.slice(comma + 1);
  if (/;base64$/i.test(meta)) return Buffer.from(payload, 'base64').toString('utf8');
  try {
    return decodeURIComponent(payload);
  } catch {
    throw new TrainingDataError('The training data URL is not valid percent-encoded text');
  }
}

/** The examples of `train.jsonl` behind `url`. */
export function resolveSftExamples(url: string): unknown[] {
  const text = decodeDataUrl(url);
  const examples: unknown[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new TrainingDataError(`train.jsonl line ${i + 1} is not JSON`);
    }
    if (value === null || typeof value !== 'object' || !Array.isArray((value as { messages?: unknown }).messages)) {
      throw new TrainingDataError(`train.jsonl line ${i + 1} has no "messages" list`);
    }
    examples.push(value);
  });
  if (examples.length === 0) throw new TrainingDataError('train.jsonl holds no examples');
  return examples;
}
