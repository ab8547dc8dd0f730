/**
 * Publishes the values of digest-values-cases.ts through the official TypeScript client (npm
 * `weave`, pinned) for test/clients/client-digests.test.ts: each object case with client.publish
 * (→ /obj/create), the dict cases as Dataset rows (→ /table/create), and an image (the client
 * computes that file's digest itself). Next to each server digest it records what the package's
 * own digest helpers (dist/digest.js: valDigest, computeDigest) compute locally. Every HTTP
 * exchange is recorded; the result goes to HEDDLE_DEMO_OUT.
 */
import { createHash } from 'node:crypto';
import * as weave from 'weave';
import { computeDigest, valDigest } from '../../../node_modules/weave/dist/digest.js';
import { TS_CASES, TS_UNPUBLISHABLE, type DigestValuesOutput } from './digest-values-cases.js';
import { describeError, setUpScript } from './record-fetch.js';

const PROJECT = process.env.HEDDLE_DIGEST_PROJECT ?? 'acme/tsdigests';
/** Bytes with a NUL, high bytes and invalid UTF-8, so no text decoding can pass unnoticed. */
const FILE_BYTES = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0x0a, 0x0d]);

const output: DigestValuesOutput = {
  finished: false,
  exitCode: null,
  failure: null,
  unhandledRejections: [],
  exchanges: [],
  objects: {},
  unpublishable: {},
  tables: {
    all: { names: [], datasetUri: null, helperRowDigests: [], helperTableDigest: '' },
    agreeing: { names: [], datasetUri: null, helperRowDigests: [], helperTableDigest: '' },
  },
  file: { bytes: FILE_BYTES.length, clientDigest: null, objectDigest: null },
};
const cancelDeadline = setUpScript(output);

type Client = Awaited<ReturnType<typeof weave.init>>;

/** A deep copy: publish marks objects it saved (`__savedRef`), and rows are reused below. */
const copy = <T>(value: T): T => structuredClone(value);

async function publishCases(client: Client): Promise<void> {
  for (const c of TS_CASES) {
    const entry: DigestValuesOutput['objects'][string] = {
      refDigest: null,
      helperDigest: valDigest(c.value),
      error: null,
    };
    try {
      entry.refDigest = (await client.publish(copy(c.value), `dv-${c.name}`)).digest;
    } catch (error) {
      entry.error = describeError(error);
    }
    output.objects[c.name] = entry;
  }
  for (const u of TS_UNPUBLISHABLE) {
    const entry: DigestValuesOutput['unpublishable'][string] = { error: null, refDigest: null };
    try {
      entry.refDigest = (await client.publish(u.value(), `dv-${u.name}`)).digest;
    } catch (error) {
      entry.error = error instanceof Error ? `${error.name}: ${error.message}` : describeError(error);
    }
    output.unpublishable[u.name] = entry;
  }
}

/** The TS client has no table digest function; this is §1.4 over the helper's row digests. */
function tableDigestOf(rowDigests: string[]): string {
  const hash = createHash('sha256');
  for (const d of rowDigests) hash.update(d, 'ascii');
  return hash.digest('hex');
}

async function publishTables(client: Client): Promise<void> {
  const rowCases = TS_CASES.filter((c) => c.value !== null && typeof c.value === 'object' && !Array.isArray(c.value));
  const sets = { all: rowCases, agreeing: rowCases.filter((c) => c.helperAgrees) };
  for (const [key, cases] of Object.entries(sets) as Array<['all' | 'agreeing', typeof rowCases]>) {
    const rows = cases.map((c) => copy(c.value) as Record<string, unknown>);
    const helperRowDigests = rows.map((r) => valDigest(r));
    const dataset = new weave.Dataset({ name: `dv-table-${key}`, rows });
    const ref = await client.publish(dataset);
    output.tables[key] = {
      names: cases.map((c) => c.name),
      datasetUri: ref.uri(),
      helperRowDigests,
      helperTableDigest: tableDigestOf(helperRowDigests),
    };
  }
}

async function publishFile(client: Client): Promise<void> {
  const ref = await client.publish({ picture: weave.weaveImage({ data: FILE_BYTES, imageType: 'png' }) }, 'dv-image');
  output.file.objectDigest = ref.digest;
  output.file.clientDigest = computeDigest(FILE_BYTES);
}

try {
  const client = await weave.init(PROJECT, { printCallLink: false });
  await publishCases(client);
  await publishTables(client);
  await publishFile(client);
  output.finished = true;
} catch (error) {
  output.failure = describeError(error);
  process.exitCode = 1;
} finally {
  cancelDeadline();
}
