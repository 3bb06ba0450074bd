import { ArborUsageError, SessionFormatError } from '../engine/session/diagnostics';
import { SettingsError } from '../engine/settings/piSettings';
import { StaleSessionError } from '../engine/session/writer';
import { processIo, type Io } from './output';
import { commands } from './commands';

const HELP = `arbor: Pi coding-agent sessions as trees: inspect, plan, compact, navigate

usage:
  arbor tree FILE [--estimator chars|tokenizer] [--json]
  arbor context FILE [--leaf ID] [--estimator chars|tokenizer] [--json]
  arbor plan-compaction FILE [--leaf ID] [--keep-recent-tokens N] [--reserve-tokens N]
                        [--context-window N] [--estimator chars|tokenizer] [--json]
  arbor plan-branch FILE --to ID [--from ID] [--budget N] [--estimator chars|tokenizer] [--json]
  arbor compact FILE [--instructions TEXT] [--provider offline|openai|anthropic] [--model ID]
                [--base-url URL] [--keep-recent-tokens N] [--json]
  arbor navigate FILE --to ID [--summarize] [--instructions TEXT] [--replace-instructions]
                 [--label TEXT] [--provider ...] [--model ID] [--base-url URL] [--json]
  arbor summary FILE [--entry ID] [--json]
  arbor sessions [--cwd DIR] [--json]
  arbor upgrade FILE

The token estimator defaults to tokenizer (gpt-tokenizer); chars is Pi's chars/4 estimate.
Exit codes: 0 success, 2 bad input (the message names the file and line), 1 anything else.`;

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(HELP);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    io.err(`arbor: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  try {
    return await command(rest, io);
  } catch (err) {
    return reportError(err, io);
  }
}

function reportError(err: unknown, io: Io): number {
  if (err instanceof SessionFormatError || err instanceof SettingsError || err instanceof ArborUsageError) {
    io.err(`arbor: ${err.message}`);
    return 2;
  }
  if (err instanceof StaleSessionError) {
    io.err(`arbor: ${err.message}`);
    return 1;
  }
  const e = err as NodeJS.ErrnoException;
  if (e && (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES')) {
    io.err(`arbor: ${e.path ?? ''}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : 'permission denied'}`);
    return 2;
  }
  io.err(`arbor: ${e instanceof Error ? e.message : String(e)}`);
  return 1;
}

if (require.main === module) {
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`arbor: ${String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
