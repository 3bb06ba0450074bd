// Bundles the extension host code, the CLI and (when present) the webview script,
// and writes the tokenizer's table next to them (dist/o200k.bin, read at run time).
import * as esbuild from 'esbuild';
import { existsSync, readFileSync } from 'node:fs';
import { writeO200kTable } from './scripts/o200kTable.mjs';

const watch = process.argv.includes('--watch');
const version = JSON.parse(readFileSync('package.json', 'utf8')).version;
const production = process.argv.includes('--production');

/** @type {import('esbuild').BuildOptions[]} */
const builds = [
  {
    entryPoints: ['src/vscode/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
  },
  {
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // Runtime dependencies of the npm package: loaded from node_modules, and only when used.
    external: ['openai', '@anthropic-ai/sdk'],
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    // Arbor's bridge, a Pi extension: `arbor pi-bridge install` copies it into Pi's extensions folder.
    // Node built-ins only; Pi loads it with jiti (an ES module with a default export).
    entryPoints: ['src/piBridge/bridge.ts'],
    outfile: 'dist/piBridge.js',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: false,
    define: { ARBOR_BRIDGE_VERSION: JSON.stringify(version) },
    banner: { js: `// arbor-pi-bridge ${version}: Arbor's bridge for the Pi coding agent (installed by \`arbor pi-bridge install\`; remove with \`arbor pi-bridge uninstall\`).` },
  },
  {
    // The one page script of every panel (summary, entry, context): src/webview/main.ts picks the kind's page.
    entryPoints: ['src/webview/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
].filter((b) => b.entryPoints.every((p) => existsSync(p)));

writeO200kTable();

// Silent on success (warnings and errors only); `arbor --version` is the package's version, bundled.
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', define: { ARBOR_VERSION: JSON.stringify(version) } };

if (watch) {
  for (const b of builds) {
    const ctx = await esbuild.context({ ...common, ...b });
    await ctx.watch();
  }
} else {
  await Promise.all(builds.map((b) => esbuild.build({ ...common, ...b })));
}
