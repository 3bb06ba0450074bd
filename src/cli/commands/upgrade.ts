import { parseWith, FILE_POSITIONAL, JSON_OPTION, type CommandSpec } from '../commandSpec';
import { printJson, type Io } from '../output';
import { upgradeSessionFile } from '../../engine/session/upgrade';

export const upgradeSpec: CommandSpec = {
  name: 'upgrade',
  summary: 'writes a version 3 copy of an old (v1/v2) session and swaps it in, keeping a backup',
  positionals: [FILE_POSITIONAL],
  options: { ...JSON_OPTION },
  examples: ['arbor upgrade old-session.jsonl'],
};

export async function upgradeCommand(argv: string[], io: Io): Promise<number> {
  const p = parseWith(upgradeSpec, argv);
  const r = await upgradeSessionFile(p.positionals[0]);
  if (p.flags.json) await printJson(io, r);
  else if (!r.backup) io.out(`${r.file} is already version ${r.fromVersion}; nothing to do`);
  else io.out(`upgraded ${r.file} from version ${r.fromVersion} to 3 (${r.entries} entries); the original is kept as ${r.backup}`);
  return 0;
}
