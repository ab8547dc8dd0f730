import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Heddle's own semver, reported as `trace_server_version`. */
export const HEDDLE_VERSION: string = (require('../package.json') as { version: string }).version;
