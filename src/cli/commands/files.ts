import { contentVerdict } from '../../engine/files/contentVerdict';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, LEAF_OPTION, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, type Io } from '../output';
import { leafIndexFrom, openSession } from '../sessionArgs';
import { withEveryEntry } from '../../engine/operations/entryLoads';
import { historyToEntry, sessionFiles } from '../../engine/files/sessionFiles';
import { changeWord, type FileHistory } from '../../engine/files/types';

export const filesSpec: CommandSpec = {
  name: 'files',
  summary: 'the files changed on the path to the leaf, and whether the session determines their content',
  positionals: [FILE_POSITIONAL],
  options: { ...LEAF_OPTION, ...JSON_OPTION },
  examples: ['arbor files session.jsonl', 'arbor files session.jsonl --leaf 3f2a9c1d --json'],
};

/** A path from a session as one safe terminal line: control characters shown escaped (JSON string form). */
export function shownPath(p: string): string {
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(p) ? JSON.stringify(p) : p;
}

export function fileSummary(f: FileHistory): {
  path: string;
  changes: { entryId: string; kind: string }[];
  knownContent: boolean;
  state: string;
  verdict: string;
  reason?: string;
} {
  const final = f.final;
  return {
    path: f.path,
    changes: f.changes.map((c) => ({ entryId: c.entryId, kind: c.kind })),
    knownContent: final.state === 'known',
    state: final.state,
    // The one "verified" rule (engine/files/contentVerdict.ts), in the words Show File Changes and Restore use.
    verdict: contentVerdict(final).words,
    ...(final.state === 'known' ? {} : { reason: final.reason }),
  };
}

/** `arbor files`: the files changed on the path from the root to the leaf, with what the session knows of their content. */
export async function filesCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(filesSpec, argv);
  const index = await openSession(p.positionals[0]);
  reportDiagnostics(io, index);
  const leaf = leafIndexFrom(index, p.flags);
  const history = await withEveryEntry(index, () => historyToEntry(index, leaf, sessionFiles(index)));
  const changed = [...history.files.values()].filter((f) => f.changes.length > 0);
  const files = changed.map(fileSummary);
  if (p.flags.json) {
    await printJson(io, { leafId: leaf >= 0 ? index.record(leaf).id : null, files });
    return 0;
  }
  if (!files.length) {
    io.out('no file changes on this path');
    return 0;
  }
  files.forEach((f, k) => {
    io.out(`${shownPath(f.path)}  (${f.changes.length} change${f.changes.length === 1 ? '' : 's'}; content ${shownPath(f.verdict)})`);
    for (const c of changed[k].changes) io.out(`  ${changeWord(c).padEnd(5)} ${shownPath(c.entryId)}`);
  });
  return 0;
}
