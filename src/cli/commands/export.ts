import * as path from 'node:path';
import { stringFlag } from '../args';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, LEAF_OPTION, type CommandSpec } from '../commandSpec';
import { openSession } from '../sessionArgs';
import { printJson, reportDiagnostics, type Io } from '../output';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { exportPieces, type ExportFormat } from '../../engine/export/exportBranch';
import { checkExportTarget, writeExportFile } from '../../engine/export/exportFile';

export const exportSpec: CommandSpec = {
  name: 'export',
  summary: 'one branch as Markdown or a self-contained HTML page (to stdout, or --out PATH)',
  positionals: [FILE_POSITIONAL],
  options: {
    ...LEAF_OPTION,
    format: { type: 'string', value: 'md|html', description: 'the output format', default: 'md' },
    out: { type: 'string', value: 'PATH', description: 'the file to write (never a session file)', default: 'stdout' },
    force: { type: 'boolean', description: 'replace an existing --out file (atomically)' },
    ...JSON_OPTION,
  },
  examples: ['arbor export session.jsonl --format html --out session.html'],
};

/** Stdout gets the document in pieces of about this many characters, each ending at a line break. */
const OUT_CHARS = 1 << 16;

/**
 * `arbor export`: one branch (the current one, or the one ending at --leaf)
 * as Markdown or a self-contained HTML page, streamed (an entry at a time:
 * no string holds the whole document) to stdout or to `--out` (never a
 * session file; an existing file only with --force, replaced atomically:
 * see exportFile.ts). `--json` (with --out) prints what was written.
 */
export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(exportSpec, argv);
  const [file] = p.positionals;
  const format = stringFlag(p.flags, 'format') ?? 'md';
  if (format !== 'md' && format !== 'html') throw new ArborUsageError(`--format takes md or html, got "${format}"`);
  const out = stringFlag(p.flags, 'out');
  if (out === undefined && p.flags.json) throw new ArborUsageError('--json needs --out: without it the document itself is the output');
  if (out === undefined && p.flags.force) throw new ArborUsageError('--force needs --out');
  const target = { session: file, force: p.flags.force === true };
  if (out !== undefined) await checkExportTarget(out, target);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const leafId = stringFlag(p.flags, 'leaf');
  if (leafId !== undefined && index.indexOf(leafId) < 0) throw new ArborUsageError(`--leaf ${leafId}: no such entry in ${index.file}`);
  const pieces = exportPieces(index, { format: format as ExportFormat, leafId, title: path.basename(file, '.jsonl') });
  if (out === undefined) {
    await writeLines(io, pieces);
    return 0;
  }
  const written = await writeExportFile(out, pieces, target);
  if (p.flags.json) await printJson(io, { out: written.path, format, leaf: leafId ?? index.leafId, bytes: written.bytes });
  else io.err(`wrote ${out}`);
  return 0;
}

/** The pieces to io.out in runs ending at a line break, waiting for a slow reader between runs. */
async function writeLines(io: Io, pieces: AsyncIterable<string>): Promise<void> {
  let pending = '';
  for await (const piece of pieces) {
    pending += piece;
    if (pending.length < OUT_CHARS) continue;
    const cut = pending.lastIndexOf('\n');
    if (cut < 0) continue;
    io.out(pending.slice(0, cut + 1));
    pending = pending.slice(cut + 1);
    await io.ready?.();
  }
  if (pending) io.out(pending);
}
