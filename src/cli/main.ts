import { ArborUsageError, SessionFormatError } from '../engine/session/diagnostics';
import { SettingsError } from '../engine/settings/piSettings';
import { StaleSessionError } from '../engine/session/writer';
import { PiRunningError } from '../engine/livePi/writeRoute';
import { BridgeError } from '../engine/livePi/client';
import { processIo, sanitizedIo, type Io } from './output';
import { commands } from './commands';
import { helpText, overviewText, wantsHelp } from './commandSpec';
import { arborVersion } from './version';
import { configureIncompleteLineWait, DEFAULT_INCOMPLETE_LINE_QUIET_MS, quietMsFromSeconds } from '../engine/session/incompleteLine';
import { redact, redactKnownSecrets, rememberEnvironmentSecrets } from '../engine/secrets/redact';

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
  const overview = () => overviewText([...commands.values()].map((c) => c.spec));
  if (name === '--version' || name === '-V') {
    io.out(`arbor ${arborVersion()}`);
    return 0;
  }
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    const asked = name === 'help' && rest[0] !== undefined ? commands.get(rest[0]) : undefined;
    if (name === 'help' && rest[0] !== undefined && !asked) return unknownCommand(rest[0], io, overview());
    io.out(asked ? helpText(asked.spec) : overview());
    return name ? 0 : 2;
  }
  const command = commands.get(name);
  if (!command) return unknownCommand(name, io, overview());
  try {
    if (wantsHelp(command.spec, rest)) {
      io.out(helpText(command.spec));
      return 0;
    }
    return await command.run(rest, io);
  } catch (err) {
    const code = reportError(err, io);
    // Asked for JSON: the failure is JSON on stdout too (the message stays on stderr).
    if (rest.includes('--json')) io.out(JSON.stringify({ error: { code, message: errorMessage(err) } }));
    return code;
  }
}

function unknownCommand(name: string, io: Io, overview: string): number {
  io.err(`arbor: unknown command ${JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name)}\n\n${overview}`);
  return 2;
}

/** An error's own message (the JSON form of a failure; the text form is reportError's). */
function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function reportError(err: unknown, io: Io): number {
  if (err instanceof PiRunningError) {
    io.err(`arbor: ${err.message}`);
    return 3;
  }
  if (err instanceof SessionFormatError || err instanceof SettingsError || err instanceof ArborUsageError) {
    io.err(`arbor: ${err.message}`);
    return 2;
  }
  if (err instanceof BridgeError) {
    io.err(`arbor: through the running Pi: ${err.message}`);
    return 1;
  }
  if (err instanceof StaleSessionError) {
    io.err(`arbor: ${err.message}`);
    return 1;
  }
  const e = err as NodeJS.ErrnoException;
  if (e && (e.code === 'ENOENT' || e.code === 'EISDIR' || e.code === 'EACCES')) {
    io.err(
      `arbor: ${e.path ?? ''}: ${e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : 'permission denied'}`,
    );
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
