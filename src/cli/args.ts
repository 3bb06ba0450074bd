import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ArborUsageError } from '../engine/session/diagnostics';

export type Flags = Record<string, string | boolean | undefined>;

export interface ParsedCommand {
  positionals: string[];
  flags: Flags;
}

/**
 * @deprecated Commands declare a `CommandSpec` and parse with `parseWith` (commandSpec.ts), which
 * also makes their `--help`. Kept only so commands written before the spec still compile while
 * they are converted; the registry (commands.ts) takes a spec for every command.
 */
export function parseCommand(argv: string[], options: NonNullable<ParseArgsConfig['options']>): ParsedCommand {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, ...options },
      allowPositionals: true,
      strict: true,
    });
    return { positionals, flags: values as Flags };
  } catch (err) {
    throw new ArborUsageError((err as Error).message);
  }
}

export function intFlag(flags: Flags, name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (typeof v !== 'string' || !/^\d+$/.test(v) || !Number.isSafeInteger(n)) {
    throw new ArborUsageError(`--${name} takes a non-negative whole number, got "${String(v)}"`);
  }
  return n;
}

export function stringFlag(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** @deprecated with parseCommand: a spec's positionals are checked by parseWith. */
export function requireFile(p: ParsedCommand, usage: string): string {
  if (p.positionals.length !== 1) throw new ArborUsageError(`usage: ${usage}`);
  return p.positionals[0];
}
