import { parseArgs } from 'node:util';
import { ArborUsageError } from '../engine/session/diagnostics';
import type { Flags, ParsedCommand } from './args';
import { DEFAULT_ESTIMATOR, ESTIMATOR_NAMES } from '../engine/tokens/estimators';

/**
 * One command's definition: the parser and the help text are both made from
 * it, so they cannot drift. A command module exports its spec next to its
 * function and parses with `parseWith(spec, argv)`.
 */
export interface OptionSpec {
  type: 'string' | 'boolean';
  /** The value's name in usage and help (string options): ID, N, TEXT, chars|tokenizer. */
  value?: string;
  /** One line: what the option does. */
  description: string;
  /** What applies when the option is not given, as help shows it. */
  default?: string;
  /** Shown outside brackets in the usage line, and an error when missing. */
  required?: boolean;
}

export interface PositionalSpec {
  name: string;
  description: string;
  optional?: boolean;
}

export interface CommandSpec {
  name: string;
  /** One line: what the command does. */
  summary: string;
  positionals: PositionalSpec[];
  options: Readonly<Record<string, OptionSpec>>;
  /** Complete command lines, as a user would type them. */
  examples: string[];
  /** The usage's arguments when positionals and options cannot say it (alternatives); else made from them. */
  synopsis?: string;
}

const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

// ---- options several commands share -----------------------------------------------------------

export const JSON_OPTION: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'machine-readable output (field names are a stable contract)' },
};
export const ESTIMATOR_OPTION: Record<string, OptionSpec> = {
  estimator: {
    type: 'string',
    value: ESTIMATOR_NAMES.join('|'),
    description: "how tokens no provider reported are counted: o200k tokens, or Pi's chars/4",
    default: DEFAULT_ESTIMATOR,
  },
};
export const LEAF_OPTION: Record<string, OptionSpec> = {
  leaf: { type: 'string', value: 'ID', description: 'the entry to look from', default: "the session's leaf" },
};
export const CONTEXT_WINDOW_OPTION: Record<string, OptionSpec> = {
  'context-window': {
    type: 'string',
    value: 'N',
    description: "the context window in tokens, winning over Pi's models.json and Arbor's model table",
  },
};
export const FILE_POSITIONAL: PositionalSpec = { name: 'FILE', description: 'a Pi session file (.jsonl)' };

// ---- usage and help ----------------------------------------------------------------------------

function optionUsage(name: string, o: OptionSpec): string {
  return o.type === 'string' ? `--${name} ${o.value ?? 'VALUE'}` : `--${name}`;
}

/** `arbor NAME ARGS [--opt VALUE] ...`: every option, required ones outside brackets. */
export function usageLine(spec: CommandSpec): string {
  const parts = [`arbor ${spec.name}`];
  if (spec.synopsis) parts.push(spec.synopsis);
  else {
    for (const p of spec.positionals) parts.push(p.optional ? `[${p.name}]` : p.name);
    for (const [name, o] of Object.entries(spec.options)) if (o.required) parts.push(optionUsage(name, o));
  }
  for (const [name, o] of Object.entries(spec.options))
    if (!o.required && !(spec.synopsis && spec.synopsis.includes(`--${name}`))) parts.push(`[${optionUsage(name, o)}]`);
  return parts.join(' ');
}

function column(rows: [string, string][]): string[] {
  const width = Math.min(28, Math.max(...rows.map(([left]) => left.length)) + 2);
  return rows.map(([left, right]) =>
    left.length + 2 > width ? `  ${left}\n  ${' '.repeat(width)}${right}` : `  ${left.padEnd(width)}${right}`,
  );
}

/** `arbor CMD --help`: usage, what it does, its arguments and options (with defaults), examples. */
export function helpText(spec: CommandSpec): string {
  const lines = [`usage: ${usageLine(spec)}`, '', spec.summary, ''];
  if (spec.positionals.length) {
    lines.push('arguments:', ...column(spec.positionals.map((p) => [p.name, p.description])), '');
  }
  const options: [string, string][] = Object.entries(spec.options).map(([name, o]) => [
    optionUsage(name, o),
    `${o.description}${o.required ? ' (required)' : ''}${o.default !== undefined ? ` (default: ${o.default})` : ''}`,
  ]);
  options.push(['-h, --help', 'this help']);
  lines.push(
    'options:',
    ...column(options),
    '',
    spec.examples.length === 1 ? 'example:' : 'examples:',
    ...spec.examples.map((e) => `  ${e}`),
  );
  return lines.join('\n');
}

/** `arbor --help`: every command's usage and summary. */
export function overviewText(specs: readonly CommandSpec[]): string {
  const lines = ['arbor: Pi coding-agent sessions as trees: inspect, plan, compact, navigate, restore', '', 'commands:'];
  for (const s of specs) lines.push(`  arbor ${s.name.padEnd(17)}${s.summary}`);
  lines.push(
    '',
    "`arbor COMMAND --help` shows a command's options and an example; `arbor --version` the version.",
    "Tokens are counted with --estimator tokenizer (o200k, the default) or chars (Pi's chars/4 estimate).",
    'Environment: ARBOR_INCOMPLETE_LINE_QUIET_SECONDS (default 2): how long a half-written last line must stay',
    "unchanged before Arbor, appending, takes it for a dead writer's.",
    'compact, navigate and label write through a running Pi that has Arbor\'s bridge ("via": "pi"); while a Pi',
    "without the bridge runs in the session's folder they write nothing and exit 3 (--force writes anyway).",
    'Exit codes: 0 success, 2 bad input (the message names the file and line), 3 a running Pi without the bridge',
    'holds the session (nothing written), 1 anything else.',
  );
  return lines.join('\n');
}

// ---- parsing -----------------------------------------------------------------------------------

/** An option name from the command line, bounded and quoted for a message. */
function shownOption(raw: string): string {
  return JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);
}

function parserOptions(spec: CommandSpec): Record<string, { type: 'string' | 'boolean'; short?: string }> {
  const out: Record<string, { type: 'string' | 'boolean'; short?: string }> = { ...HELP_OPTION };
  for (const [name, o] of Object.entries(spec.options)) out[name] = { type: o.type };
  return out;
}

function tokensOf(spec: CommandSpec, argv: string[]) {
  // Not strict: every token is checked below, with Arbor's own messages.
  return parseArgs({ args: argv, options: parserOptions(spec), allowPositionals: true, strict: false, tokens: true });
}

/** True when the arguments ask for help (`--help` or `-h` anywhere before `--`, not as an option's value). */
export function wantsHelp(spec: CommandSpec, argv: string[]): boolean {
  return tokensOf(spec, argv).tokens.some((t) => t.kind === 'option' && t.name === 'help');
}

/**
 * Parses a command's arguments by its spec. Anything the spec does not
 * declare (an option, a value where none is taken, a missing value, a
 * missing or extra argument, a missing required option) is a usage error
 * (exit 2) naming what was wrong and the command's usage.
 */
export function parseWith(spec: CommandSpec, argv: string[]): ParsedCommand {
  const fail = (what: string): never => {
    throw usageError(spec, what);
  };
  const { tokens, positionals } = tokensOf(spec, argv);
  const flags: Flags = {};
  for (const t of tokens) {
    if (t.kind !== 'option') continue;
    const o = spec.options[t.name];
    if (t.name === 'help') continue;
    if (!o) fail(`unknown option ${shownOption(t.rawName)}`);
    else if (o.type === 'string' && t.value === undefined) fail(`${t.rawName} takes a value (${o.value ?? 'VALUE'})`);
    else if (o.type === 'boolean' && t.value !== undefined) fail(`${t.rawName} takes no value`);
    else flags[t.name] = o.type === 'string' ? t.value : true;
  }
  const min = spec.positionals.filter((p) => !p.optional).length;
  if (!spec.synopsis) {
    if (positionals.length < min)
      fail(
        `missing ${spec.positionals
          .slice(positionals.length, min)
          .map((p) => p.name)
          .join(' ')}`,
      );
    if (positionals.length > spec.positionals.length) fail(`unexpected argument ${shownOption(positionals[spec.positionals.length])}`);
  }
  for (const [name, o] of Object.entries(spec.options))
    if (o.required && flags[name] === undefined) fail(`${optionUsage(name, o)} is required`);
  return { positionals, flags };
}

/** A usage error for a command (arguments the spec cannot express), with its usage. */
export function usageError(spec: CommandSpec, what: string): ArborUsageError {
  return new ArborUsageError(`${spec.name}: ${what}\nusage: ${usageLine(spec)}\n(arbor ${spec.name} --help for details)`);
}
