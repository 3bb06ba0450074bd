/** Short builders of the fake model's scripted answers (test/support/fakeProvider behaviours). */
import type { Behaviour } from '../../test/support/fakeProvider';

type Call = { name: string; arguments: Record<string, unknown> };

export const say = (text: string): Behaviour => ({ type: 'text', text });
export const bash = (command: string): Call => ({ name: 'bash', arguments: { command } });
export const read = (p: string): Call => ({ name: 'read', arguments: { path: p } });
export const write = (p: string, content: string): Call => ({ name: 'write', arguments: { path: p, content } });
export const edit = (p: string, ...edits: [string, string][]): Call => ({
  name: 'edit',
  arguments: { path: p, edits: edits.map(([oldText, newText]) => ({ oldText, newText })) },
});
/** One answer calling the given tools (with optional text before the calls). */
export const calls = (text: string, ...c: Call[]): Behaviour =>
  c.length === 1 ? { type: 'toolCall', text, name: c[0].name, arguments: c[0].arguments } : { type: 'toolCall', text, calls: c };
