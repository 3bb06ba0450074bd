import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { stringFlag } from '../args';
import { parseWith, FILE_POSITIONAL, LEAF_OPTION, type CommandSpec } from '../commandSpec';
import { openSession } from '../sessionArgs';
import { reportDiagnostics, type Io } from '../output';
import { ArborUsageError } from '../../engine/session/diagnostics';
import { exportBranch, type ExportFormat } from '../../engine/export/exportBranch';

export const exportSpec: CommandSpec = {
  name: 'export',
  summary: 'one branch as Markdown or a self-contained HTML page (to stdout, or --out PATH)',
  positionals: [FILE_POSITIONAL],
  options: {
    ...LEAF_OPTION,
    format: { type: 'string', value: 'md|html', description: 'the output format', default: 'md' },
    out: { type: 'string', value: 'PATH', description: 'the file to write', default: 'stdout' },
  },
  examples: ['arbor export session.jsonl --format html --out session.html'],
};

/** `arbor export`: one branch (the current one, or the one ending at --leaf) as Markdown or a self-contained HTML page. */
export async function exportCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(exportSpec, argv);
  const [file] = p.positionals;
  const format = stringFlag(p.flags, 'format') ?? 'md';
  if (format !== 'md' && format !== 'html') throw new ArborUsageError(`--format takes md or html, got "${format}"`);
  const out = stringFlag(p.flags, 'out');
  if (out !== undefined && path.resolve(out) === path.resolve(file)) throw new ArborUsageError(`--out ${out} is the session file itself: refusing to overwrite it`);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const leafId = stringFlag(p.flags, 'leaf');
  if (leafId !== undefined && index.indexOf(leafId) < 0) throw new ArborUsageError(`--leaf ${leafId}: no such entry in ${index.file}`);
  const text = exportBranch(index, { format: format as ExportFormat, leafId, title: path.basename(file, '.jsonl') });
  if (out === undefined) io.out(text);
  else {
    try {
      await writeFile(out, text, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ArborUsageError(`--out ${out}: the folder ${path.dirname(path.resolve(out))} does not exist`);
      if (code === 'EISDIR') throw new ArborUsageError(`--out ${out} is a folder: give a file path`);
      throw err;
    }
    io.err(`wrote ${out}`);
  }
  return 0;
}
