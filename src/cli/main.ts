import { ArborUsageError, SessionFormatError } from '../engine/session/diagnostics';
import { SettingsError } from '../engine/settings/piSettings';
import { StaleSessionError } from '../engine/session/writer';
import { processIo, sanitizedIo, type Io } from './output';
import { commands } from './commands';
import { configureIncompleteLineWait, DEFAULT_INCOMPLETE_LINE_QUIET_MS, quietMsFromSeconds } from '../engine/session/incompleteLine';
import { redact, redactKnownSecrets, rememberEnvironmentSecrets } from '../engine/secrets/redact';

const HELP = `arbor: Pi coding-agent sessions as trees: inspect, plan, compact, navigate

usage:
  arbor tree FILE [--estimator chars|tokenizer] [--json]
  arbor context FILE [--leaf ID] [--estimator chars|tokenizer] [--context-window N] [--json]
  arbor plan-compaction FILE [--leaf ID] [--keep-recent-tokens N] [--reserve-tokens N]
                        [--context-window N] [--estimator chars|tokenizer] [--json]
  arbor plan-branch FILE --to ID [--from ID] [--budget N] [--estimator chars|tokenizer] [--json]
  arbor compact FILE [--instructions TEXT] [--provider offline|openai|anthropic] [--model ID]
                [--base-url URL] [--deadline SECONDS] [--max-answer-chars N]
                [--keep-recent-tokens N] [--json]
  arbor navigate FILE --to ID [--summarize] [--instructions TEXT] [--replace-instructions]
                 [--label TEXT] [--provider ...] [--model ID] [--base-url URL]
                 [--deadline SECONDS] [--max-answer-chars N] [--json]
  arbor summary FILE [--entry ID] [--json]
  arbor sessions [--cwd DIR] [--json]
  arbor upgrade FILE
  arbor files FILE [--leaf ID] [--json]
  arbor restore FILE --to ID [--cwd DIR] [--dry-run] [--delete-created] [--json]
  arbor export FILE [--leaf ID] [--format md|html] [--out PATH]   (stdout by default)

The token estimator defaults to tokenizer (o200k, gpt-tokenizer's counts); chars is Pi's chars/4 estimate.
Environment: ARBOR_INCOMPLETE_LINE_QUIET_SECONDS (default 2): how long a half-written last line must stay unchanged
before Arbor, appending, takes it for a dead writer's.
Exit codes: 0 success, 2 bad input (the message names the file and line), 1 anything else.`;

/** Runs one CLI invocation and returns its exit code. */
export async function runCli(argv: string[], rawIo: Io = processIo): Promise<number> {
  // No form of a provider key reaches stdout or stderr, whatever a provider or a session holds;
  // then every line goes through the one sanitizer (nothing reaches the terminal raw).
  rememberEnvironmentSecrets(process.env);
  const io = sanitizedIo({ out: (t) => rawIo.out(redactKnownSecrets(t)), err: (t) => rawIo.err(redact(t)), ready: rawIo.ready });
  const quiet = process.env.ARBOR_INCOMPLETE_LINE_QUIET_SECONDS;
  const quietMs = quiet === undefined || quiet === '' ? DEFAULT_INCOMPLETE_LINE_QUIET_MS : quietMsFromSeconds(quiet);
  if (quietMs === undefined) {
    io.err(`arbor: ARBOR_INCOMPLETE_LINE_QUIET_SECONDS must be a number of seconds (0 to 3600), not ${JSON.stringify(quiet)}`);
    return 2;
  }
  configureIncompleteLineWait({ quietMs });
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

/** A reader that went away (`arbor tree … | head`) ends the process quietly, with success. */
function exitQuietlyOnClosedOutput(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    process.exitCode = 1;
  });
}

if (require.main === module) {
  exitQuietlyOnClosedOutput(process.stdout);
  exitQuietlyOnClosedOutput(process.stderr);
  runCli(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`arbor: ${redact(String(err))}\n`);
      process.exitCode = 1;
    },
  );
}
