import { parseCommand, requireFile } from '../args';
import { printJson, type Io } from '../output';
import { upgradeSessionFile } from '../../engine/session/upgrade';

export async function upgradeCommand(argv: string[], io: Io): Promise<number> {
  const p = parseCommand(argv, {});
  const r = await upgradeSessionFile(requireFile(p, 'arbor upgrade FILE'));
  if (p.flags.json) printJson(io, r);
  else if (!r.backup) io.out(`${r.file} is already version ${r.fromVersion}; nothing to do`);
  else io.out(`upgraded ${r.file} from version ${r.fromVersion} to 3 (${r.entries} entries); the original is kept as ${r.backup}`);
  return 0;
}
