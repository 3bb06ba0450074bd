// Deletes compiled files in out/ whose TypeScript source is gone (a renamed or deleted module or test): tsc never
// removes them, and mocha runs every out/test/unit/**/*.test.js, so a stale test would run against stale code.
// Run by `npm run compile` before tsc.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import * as path from 'node:path';

const out = path.resolve('out');

/** out/<dir>/x.js (or .js.map, .d.ts) -> <dir>/x.ts or x.tsx; undefined for a file tsc does not write. */
function sourceOf(file) {
  const rel = path.relative(out, file);
  const m = /^(.*)\.(?:js|js\.map|d\.ts)$/.exec(rel);
  return m ? [`${m[1]}.ts`, `${m[1]}.tsx`] : undefined;
}

function prune(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) prune(p);
    else {
      const sources = sourceOf(p);
      if (sources && !sources.some((s) => existsSync(s))) rmSync(p);
    }
  }
}

if (existsSync(out)) prune(out);
