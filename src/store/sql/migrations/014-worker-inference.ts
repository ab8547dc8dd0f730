import type { Migration } from './migration.js';

/**
 * A training worker's inference endpoint (docs/training-worker-protocol.md, "Inference"): the URL
 * and bearer token it advertised with its last lease request, so that every API node can route
 * `/v1/chat/completions` for its base models' checkpoints to it. Null for workers that do not serve.
 */
const SQL = `ALTER TABLE training_workers ADD COLUMN inference_url text;
ALTER TABLE training_workers ADD COLUMN inference_token text;`;

export const migration: Migration = {
  id: 14,
  name: 'worker-inference',
  sqlite: SQL,
  postgres: SQL,
};
