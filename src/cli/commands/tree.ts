import { parseCommand, requireFile } from '../args';
import { openSession, estimatorFrom } from '../sessionArgs';
import { printJson, reportDiagnostics, type Io } from '../output';
import { entryPreview } from '../../engine/tree/entryPreview';
import { entryContextMessages } from '../../engine/context/entryMessages';
import type { SessionIndex } from '../../engine/session/sessionIndex';
import type { TokenEstimator } from '../../engine/tokens/estimators';

const USAGE = 'arbor tree FILE [--estimator chars|tokenizer] [--json]';

export async function treeCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, { estimator: { type: 'string' } });
  const index = await openSession(requireFile(p, USAGE));
  reportDiagnostics(io, index);
  const estimator = estimatorFrom(p.flags);
  const id = (i: number) => index.record(i).id;
  if (p.flags.json) {
    const branchPoints: Record<string, string[]> = {};
    for (const [bp, kids] of index.branchPoints()) branchPoints[id(bp)] = kids.map(id);
    printJson(io, {
      leafId: index.leafId,
      entryCount: index.entryCount,
      roots: index.roots().map(id),
      branchPoints,
      labels: Object.fromEntries(index.labels()),
      entries: Array.from({ length: index.entryCount }, (_, i) => {
        const pv = entryPreview(index.entry(i));
        return { id: id(i), parentId: index.record(i).parentId, type: index.record(i).type, kind: pv.kind, line: index.record(i).line, tokens: entryTokens(index, i, estimator), preview: pv.text };
      }),
    });
    return 0;
  }
  io.out(drawTree(index, estimator).join('\n'));
  return 0;
}

function entryTokens(index: SessionIndex, i: number, estimator: TokenEstimator): number {
  return entryContextMessages(index.entry(i)).reduce((s, m) => s + estimator.estimate(m), 0);
}

/**
 * A linear run of entries stays at one indent; only a branch point nests its
 * children, the way Pi's /tree shows a session.
 */
export function drawTree(index: SessionIndex, estimator: TokenEstimator): string[] {
  const h = index.header;
  const lines = [`session ${h.id} (v${index.version}) cwd ${h.cwd}: ${index.entryCount} entries, leaf ${index.leafId ?? '-'}`];
  const onLeafPath = new Set(index.pathTo(index.leafIndex));
  const labels = index.labels();
  const describe = (i: number) => {
    const rec = index.record(i);
    const pv = entryPreview(index.entry(i), 70);
    const tokens = entryTokens(index, i, estimator);
    const label = labels.get(rec.id);
    const marks = [tokens ? `${tokens} tok` : '', label ? `[${label}]` : '', i === index.leafIndex ? '◀ leaf' : ''].filter(Boolean).join(' ');
    return `${rec.id} ${pv.kind.padEnd(13)} ${pv.text}${marks ? `  ${marks}` : ''}`;
  };
  // Iterative walk: each frame draws a chain from `start` with a prefix.
  const stack: { start: number; prefix: string; head: string }[] = index
    .roots()
    .reverse()
    .map((r, k, all) => ({ start: r, prefix: all.length > 1 ? '   ' : '', head: all.length > 1 ? (k === 0 ? '└─ ' : '├─ ') : '' }));
  while (stack.length) {
    const { start, prefix, head } = stack.pop()!;
    let i = start;
    let first = true;
    for (;;) {
      lines.push(`${first ? prefix.slice(0, -3) + head : prefix}${describe(i)}`.replace(/^$/, ''));
      first = false;
      const kids = index.children(i);
      if (kids.length === 1) {
        i = kids[0];
        continue;
      }
      // Children of a branch point: the one on the leaf's path last, so the active path reads on.
      const ordered = [...kids].sort((a, b) => Number(onLeafPath.has(a)) - Number(onLeafPath.has(b)));
      for (let k = ordered.length - 1; k >= 0; k--) {
        const last = k === ordered.length - 1;
        stack.push({ start: ordered[k], prefix: `${prefix}${last ? '   ' : '│  '}`, head: last ? '└─ ' : '├─ ' });
      }
      break;
    }
  }
  return lines;
}
