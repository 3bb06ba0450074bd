import { parseCommand, requireFile, stringFlag } from '../args';
import { printJson, reportDiagnostics, shortField, type Io } from '../output';
import { openSession } from '../sessionArgs';
import { FORCE_FLAG, writeRouteFor } from '../writeRouteArgs';
import { setLabel } from '../../engine/operations/label';
import { ArborUsageError } from '../../engine/session/diagnostics';

const USAGE = 'arbor label FILE --entry ID (--label TEXT | --clear) [--force] [--pi-wait SECONDS] [--json]';

/** Writes Pi's label entry for an entry (a pin is a label starting with 📌 or "pin:"). */
export async function labelCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, { entry: { type: 'string' }, label: { type: 'string' }, clear: { type: 'boolean' }, ...FORCE_FLAG });
  const file = requireFile(p, USAGE);
  const entryId = stringFlag(p.flags, 'entry');
  if (!entryId) throw new ArborUsageError(`--entry ID is required; usage: ${USAGE}`);
  const label = stringFlag(p.flags, 'label');
  const clear = p.flags.clear === true;
  if ((label === undefined) === !clear) throw new ArborUsageError(`give either --label TEXT or --clear; usage: ${USAGE}`);
  const index = await openSession(file);
  reportDiagnostics(io, index);
  const route = await writeRouteFor(index, p.flags);
  const result = await setLabel({ index, entryId, label: clear ? null : (label ?? null), route });
  if (p.flags.json) {
    printJson(io, { entryId, label: result.label, written: result.entry ?? null, via: route.via });
    return 0;
  }
  const what = result.label === null ? 'cleared the label of' : `labelled`;
  if (!result.entry) io.out(`nothing written: ${entryId} already has ${result.label === null ? 'no label' : `the label ${shortField(result.label)}`}`);
  else io.out(`${what} ${entryId}${result.label === null ? '' : ` ${shortField(result.label)}`} (entry ${result.entry.id}, ${route.via === 'pi' ? `written by Pi, pid ${route.state.pid}` : 'written to the file'})`);
  return 0;
}
