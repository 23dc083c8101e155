#!/usr/bin/env node
// The CLI runs from the compiled output; `npm install` builds it (the `prepare` script).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('timeslice: not built yet. Run `npm install` (or `npm run build`) in the checkout first.');
  process.exit(1);
}
const { run } = await import(main.href);
process.exitCode = await run(process.argv.slice(2));
