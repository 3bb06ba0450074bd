/**
 * Damage done to a rendered session for fuzzing the readers: invalid JSON,
 * cut-off last lines, BOM, CRLF, duplicate ids, cycles, orphans, swapped
 * lines, bytes that are not UTF-8, fields of the wrong type.
 */
import fc from 'fast-check';

export type Mutation =
  | { kind: 'garbage'; at: number; text: string }
  | { kind: 'cut'; keep: number }
  | { kind: 'bom' }
  | { kind: 'crlf' }
  | { kind: 'dupId'; at: number; from: number }
  | { kind: 'reparent'; at: number; to: number }
  | { kind: 'orphan'; at: number }
  | { kind: 'swap'; at: number }
  | { kind: 'badBytes'; at: number }
  | { kind: 'wrongType'; at: number; field: 'id' | 'parentId' | 'message' | 'content' | 'role' | 'summary' | 'usage'; value: unknown };

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({
    kind: fc.constant('garbage' as const),
    at: fc.nat(),
    text: fc.oneof(
      fc.string(),
      fc.constantFrom('{', '{"type":', '[]', 'null', '{"type":"message"}', '{"type":"message","id":"x","parentId":null}'),
    ),
  }),
  fc.record({ kind: fc.constant('cut' as const), keep: fc.nat({ max: 200 }) }),
  fc.constant({ kind: 'bom' as const }),
  fc.constant({ kind: 'crlf' as const }),
  fc.record({ kind: fc.constant('dupId' as const), at: fc.nat(), from: fc.nat() }),
  fc.record({ kind: fc.constant('reparent' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('orphan' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('badBytes' as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant('wrongType' as const),
    at: fc.nat(),
    field: fc.constantFrom('id', 'parentId', 'message', 'content', 'role', 'summary', 'usage') as fc.Arbitrary<'id'>,
    value: fc.oneof(fc.integer(), fc.constant(null), fc.constant([]), fc.constant({}), fc.string(), fc.boolean()),
  }),
);

export function mutate(text: string, mutations: Mutation[]): Buffer {
  let lines = text.trimEnd().split('\n');
  let cutTail = -1;
  let bom = false;
  let crlf = false;
  for (const m of mutations) {
    const n = lines.length;
    const pick = (k: number) => 1 + (k % Math.max(1, n - 1)); // never the header
    if (n < 2 && m.kind !== 'bom' && m.kind !== 'crlf' && m.kind !== 'garbage') continue;
    switch (m.kind) {
      case 'garbage':
        lines.splice(pick(m.at), 0, m.text.replace(/\n/g, ' '));
        break;
      case 'cut':
        cutTail = m.keep;
        break;
      case 'bom':
        bom = true;
        break;
      case 'crlf':
        crlf = true;
        break;
      case 'dupId':
      case 'reparent':
      case 'orphan':
      case 'wrongType': {
        const i = pick(m.at);
        let e: Record<string, any>;
        try {
          e = JSON.parse(lines[i]);
        } catch {
          break;
        }
        if (typeof e !== 'object' || e === null || Array.isArray(e)) break;
        if (m.kind === 'dupId') {
          try {
            e.id = JSON.parse(lines[pick(m.from)])?.id;
          } catch {
            /* the other line is garbage */
          }
        } else if (m.kind === 'reparent') {
          try {
            e.parentId = JSON.parse(lines[pick(m.to)])?.id; // may create a cycle
          } catch {
            /* garbage */
          }
        } else if (m.kind === 'orphan') e.parentId = 'ffffffff';
        else if (m.field === 'content' || m.field === 'role' || m.field === 'usage') {
          if (e.message && typeof e.message === 'object') e.message[m.field] = m.value;
        } else e[m.field] = m.value;
        lines[i] = JSON.stringify(e);
        break;
      }
      case 'swap': {
        const i = pick(m.at);
        if (i + 1 < n) [lines[i], lines[i + 1]] = [lines[i + 1], lines[i]];
        break;
      }
      case 'badBytes':
        break;
    }
  }
  lines = lines.map((l) => l);
  let out = lines.join(crlf ? '\r\n' : '\n') + (crlf ? '\r\n' : '\n');
  if (cutTail >= 0 && lines.length > 1) out = out.slice(0, Math.max(out.length - 1 - cutTail, out.lastIndexOf('\n', out.length - 2) + 1));
  let buf = Buffer.from(out, 'utf8');
  const bad = mutations.find((m): m is Extract<Mutation, { kind: 'badBytes' }> => m.kind === 'badBytes');
  if (bad && buf.length > 200) {
    const at = 150 + (bad.at % (buf.length - 160));
    buf = Buffer.concat([buf.subarray(0, at), Buffer.from([0xff, 0xfe, 0xc3]), buf.subarray(at)]);
  }
  if (bom) buf = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), buf]);
  return buf;
}
