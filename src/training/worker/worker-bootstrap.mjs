// Entry of the built-in trainer's worker thread. The project runs TypeScript through tsx, whose
// `--import tsx` registers its hooks on the main thread only (Node 20), so the worker registers
// them itself through tsx's API (resolved next to this file, whatever the cwd) before loading
// the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./worker-main.ts');
