import { stringFlag } from '../args';
import { parseWith, FILE_POSITIONAL, JSON_OPTION, usageError, type CommandSpec } from '../commandSpec';
import { printJson, reportDiagnostics, shortField, type Io } from '../output';
import { openSession } from '../sessionArgs';
import { WRITE_ROUTE_OPTIONS, reportForced, routeJson, writeRouteFor } from '../writeRouteArgs';
import { setLabel } from '../../engine/operations/label';

export const labelSpec: CommandSpec = {
  name: 'label',
  summary: "writes Pi's label entry for an entry (a pin is a label: 📌 or pin: …); through a running Pi, Pi writes it",
  positionals: [FILE_POSITIONAL],
  synopsis: 'FILE --entry ID (--label TEXT | --clear)',
  options: {
    entry: { type: 'string', value: 'ID', description: 'the entry to label', required: true },
    label: { type: 'string', value: 'TEXT', description: 'the label (one line)' },
    clear: { type: 'boolean', description: "remove the entry's label" },
    ...WRITE_ROUTE_OPTIONS,
    ...JSON_OPTION,
  },
  examples: ['arbor label session.jsonl --entry 3f2a9c1d --label "📌 API rules"', 'arbor label session.jsonl --entry 3f2a9c1d --clear'],
};

/** Writes Pi's label entry for an entry (a pin is a label starting with 📌 or "pin:"). */
export async function labelCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(labelSpec, argv);
  if (p.positionals.length !== 1) throw usageError(labelSpec, 'give one session FILE');
  const [file] = p.positionals;
  const entryId = stringFlag(p.flags, 'entry');
  if (!entryId) throw usageError(labelSpec, '--entry ID is required');
  const label = stringFlag(p.flags, 'label');
  const clear = p.flags.clear === true;
  if ((label === undefined) === !clear) throw usageError(labelSpec, 'give either --label TEXT or --clear');
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const route = await writeRouteFor(index, p.flags, { io, waitFor: 'write' });
  const result = await setLabel({ index, entryId, label: clear ? null : (label ?? null), route });
  if (p.flags.json) {
    await printJson(io, { entryId, label: result.label, written: result.entry ?? null, ...routeJson(route) });
    return 0;
  }
  const what = result.label === null ? 'cleared the label of' : `labelled`;
  if (!result.entry)
    io.out(`nothing written: ${entryId} already has ${result.label === null ? 'no label' : `the label ${shortField(result.label)}`}`);
  else
    io.out(
      `${what} ${entryId}${result.label === null ? '' : ` ${shortField(result.label)}`} (entry ${result.entry.id}, ` +
        `${route.via === 'pi' ? `written by Pi, pid ${route.state.pid}` : 'written to the file'})`,
    );
  if (result.entry) reportForced(io, route);
  return 0;
}
