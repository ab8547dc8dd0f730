import fs from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { CatalogFile } from '../schemas/inference-catalog.js';

/** Reads and checks the file of `HEDDLE_INFERENCE_CATALOG`; no path is the empty catalogue. Throws a readable message. */
export function loadCatalogFile(file: string | undefined): CatalogFile {
  if (file === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const first = Value.Errors(CatalogFile, parsed).First();
  if (first) throw new Error(`${file}: ${first.path || '(root)'}: ${first.message}`);
  return parsed as CatalogFile;
}
