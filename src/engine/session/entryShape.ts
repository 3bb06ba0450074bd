import { isRecord } from './jsonObject';

/**
 * The shape every entry read from a session must have before anything uses
 * it: the fields Arbor reads have the type Pi writes (a string where text
 * belongs, a finite number where a count belongs), no value is nested deeper
 * than MAX_ENTRY_DEPTH, and no object carries a `toString`/`valueOf` key
 * (which makes `String(value)` throw). An entry that fails is reported with
 * its file and line and its content is not used (parseLine.ts); fields Arbor
 * does not read are not checked. Checking is an iterative walk (no recursion),
 * linear in the size of the parsed value.
 */

/** The deepest nesting an entry may have (Pi's own entries nest a handful of levels; tool arguments a few more). */
export const MAX_ENTRY_DEPTH = 256;

type Kind =
  | 'string'
  | 'number'
  | 'boolean'
  | 'record'
  | 'array'
  | 'content'
  | 'usage'
  | 'numberOrNull'
  | 'replacement'
  | 'sections'
  | 'blocks'
  | 'systemMessage';

/** Fields by name: `!` after a kind marks a required field. */
type Fields = Readonly<Record<string, `${Kind}` | `${Kind}!`>>;

export const USAGE_FIELDS: Fields = {
  input: 'number',
  output: 'number',
  cacheRead: 'number',
  cacheWrite: 'number',
  totalTokens: 'number',
  cost: 'record',
};

const BLOCK_FIELDS: Readonly<Record<string, Fields>> = {
  text: { text: 'string!' },
  thinking: { thinking: 'string!' },
  toolCall: { id: 'string!', name: 'string!', arguments: 'record!' },
  image: { data: 'string!', mimeType: 'string!' },
};

export const ROLE_FIELDS: Readonly<Record<string, Fields>> = {
  user: { content: 'content!', timestamp: 'number' },
  assistant: {
    content: 'blocks!',
    api: 'string',
    provider: 'string',
    model: 'string',
    usage: 'usage',
    stopReason: 'string',
    errorMessage: 'string',
    timestamp: 'number',
  },
  toolResult: { toolCallId: 'string!', toolName: 'string!', content: 'content!', isError: 'boolean', timestamp: 'number' },
  bashExecution: {
    command: 'string!',
    output: 'string!',
    exitCode: 'numberOrNull',
    cancelled: 'boolean',
    truncated: 'boolean',
    fullOutputPath: 'string',
    excludeFromContext: 'boolean',
    timestamp: 'number',
  },
  custom: { customType: 'string!', content: 'content!', display: 'boolean', timestamp: 'number' },
  system: { content: 'content!', sections: 'sections', toolsAdded: 'array', toolsRemoved: 'array', timestamp: 'number' },
  branchSummary: { summary: 'string!', fromId: 'string!', timestamp: 'number' },
  compactionSummary: { summary: 'string!', tokensBefore: 'number!', timestamp: 'number' },
};

const TYPE_FIELDS: Readonly<Record<string, Fields>> = {
  message: { message: 'record!' },
  model_change: { provider: 'string!', modelId: 'string!' },
  thinking_level_change: { thinkingLevel: 'string!' },
  compaction: {
    summary: 'string!',
    firstKeptEntryId: 'string!',
    tokensBefore: 'number!',
    usage: 'usage',
    fromHook: 'boolean',
    systemMessage: 'systemMessage',
  },
  branch_summary: { summary: 'string!', fromId: 'string!', usage: 'usage', fromHook: 'boolean' },
  custom: { customType: 'string!' },
  custom_message: { customType: 'string!', content: 'content!', display: 'boolean' },
  label: { targetId: 'string!', label: 'string' },
  session_info: { name: 'string' },
  context_edit: { targetId: 'string!', replacement: 'replacement!' },
  usage: { usage: 'usage' },
};

/** Why a parsed entry object cannot be used, or undefined when its shape is right. `type` was checked to be a string. */
export function entryShapeProblem(entry: Record<string, unknown>): string | undefined {
  const type = entry.type as string;
  const fields = Object.prototype.hasOwnProperty.call(TYPE_FIELDS, type) ? TYPE_FIELDS[type] : undefined;
  // An unknown type's fields are kept as read (its wrapper trusts only a string id, parent and timestamp).
  if (fields && entry.timestamp !== undefined && typeof entry.timestamp !== 'string') return '"timestamp" is not a string';
  const problem =
    fields &&
    (fieldsProblem(entry, fields, '') ??
      (type === 'message' ? messageProblem(entry.message as Record<string, unknown>, 'message.') : undefined));
  return problem ?? oddValueProblem(entry);
}

/** Why a header's fields (other than those loadSession checks) cannot be used. */
export function headerShapeProblem(header: Record<string, unknown>): string | undefined {
  return oddValueProblem(header);
}

function messageProblem(m: Record<string, unknown>, at: string): string | undefined {
  if (typeof m.role !== 'string') return `"${at}role" is not a string`;
  const fields = Object.prototype.hasOwnProperty.call(ROLE_FIELDS, m.role) ? ROLE_FIELDS[m.role] : undefined;
  return fields ? fieldsProblem(m, fields, at) : undefined;
}

function fieldsProblem(o: Record<string, unknown>, fields: Fields, at: string): string | undefined {
  for (const name of Object.keys(fields)) {
    const spec = fields[name];
    const required = spec.endsWith('!');
    const kind = (required ? spec.slice(0, -1) : spec) as Kind;
    const value = o[name];
    if (value === undefined) {
      if (required) return `"${at}${name}" is missing`;
      continue;
    }
    const problem = valueProblem(value, kind, `${at}${name}`);
    if (problem) return problem;
  }
  return undefined;
}

const KIND_NAMES: Readonly<Record<Kind, string>> = {
  string: 'a string',
  number: 'a finite number',
  boolean: 'true or false',
  record: 'an object',
  array: 'an array',
  content: 'text or a list of content blocks',
  blocks: 'a list of content blocks',
  usage: 'a usage object of numbers',
  numberOrNull: 'a finite number or null',
  replacement: 'null or an object with content',
  sections: 'an object of texts',
  systemMessage: 'a system message',
};

function valueProblem(value: unknown, kind: Kind, at: string): string | undefined {
  const wrong = `"${at}" is not ${KIND_NAMES[kind]}`;
  switch (kind) {
    case 'string':
      return typeof value === 'string' ? undefined : wrong;
    case 'number':
      return isFiniteNumber(value) ? undefined : wrong;
    case 'numberOrNull':
      return value === null || isFiniteNumber(value) ? undefined : wrong;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : wrong;
    case 'record':
      return isRecord(value) ? undefined : wrong;
    case 'array':
      return Array.isArray(value) ? undefined : wrong;
    case 'content':
      return typeof value === 'string' ? undefined : Array.isArray(value) ? blocksProblem(value, at) : wrong;
    case 'blocks':
      return Array.isArray(value) ? blocksProblem(value, at) : wrong;
    case 'usage':
      return isRecord(value) ? fieldsProblem(value, USAGE_FIELDS, `${at}.`) : wrong;
    case 'sections':
      if (!isRecord(value)) return wrong;
      for (const [k, v] of Object.entries(value)) if (v !== null && typeof v !== 'string') return `"${at}.${k}" is not a string`;
      return undefined;
    case 'replacement':
      if (value === null) return undefined;
      return isRecord(value) ? fieldsProblem(value, { content: 'content!' }, `${at}.`) : wrong;
    case 'systemMessage':
      if (!isRecord(value)) return wrong;
      if (value.role !== 'system') return `"${at}.role" is not "system"`;
      return messageProblem(value, `${at}.`);
  }
}

function blocksProblem(blocks: unknown[], at: string): string | undefined {
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i];
    if (!isRecord(b) || typeof b.type !== 'string') return `"${at}[${i}]" is not a content block`;
    const fields = Object.prototype.hasOwnProperty.call(BLOCK_FIELDS, b.type) ? BLOCK_FIELDS[b.type] : undefined;
    const problem = fields && fieldsProblem(b, fields, `${at}[${i}].`);
    if (problem) return problem;
  }
  return undefined;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Keys that make `String(object)` throw when they hold a non-function (every value JSON can hold). */
const PRIMITIVE_KEYS = ['toString', 'valueOf'];

/**
 * Nesting deeper than MAX_ENTRY_DEPTH, or an object with a key that breaks
 * its conversion to text, anywhere in the value (an explicit stack: the walk
 * itself cannot overflow, whatever the depth).
 */
export function oddValueProblem(root: unknown): string | undefined {
  const stack: unknown[] = [root];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const value = stack.pop();
    const depth = depths.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_ENTRY_DEPTH) return `it is nested more than ${MAX_ENTRY_DEPTH} levels deep`;
    if (Array.isArray(value)) {
      for (const v of value) {
        if (typeof v === 'object' && v !== null) {
          stack.push(v);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    for (const k of PRIMITIVE_KEYS) {
      if (Object.prototype.hasOwnProperty.call(value, k)) return `it has an object with a "${k}" key`;
    }
    for (const k in value) {
      const v = (value as Record<string, unknown>)[k];
      if (typeof v === 'object' && v !== null) {
        stack.push(v);
        depths.push(depth + 1);
      }
    }
  }
  return undefined;
}
