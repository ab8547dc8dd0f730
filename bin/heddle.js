#!/usr/bin/env node
// Runs the compiled entry point (dist/main.js, written by `npm run build`, which `npm ci` runs).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
if (!fs.existsSync(main)) {
  console.error(`heddle: ${main} is missing; run \`npm run build\` in ${path.dirname(path.dirname(main))} first`);
  process.exit(1);
}
await import(pathToFileURL(main).href);
