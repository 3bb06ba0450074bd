/** Issue 20 item 5: --json results are written a chunk of lines at a time, the same bytes as JSON.stringify(value, null, 2). */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { LazyJsonList, jsonLines } from '../../../src/cli/jsonLines';
import { printJson, type Io } from '../../../src/cli/output';

const stringify = (v: unknown) => JSON.stringify(v, null, 2);

/** What printJson writes, and how many chunks (each a call of out) it took. */
async function printed(value: unknown): Promise<{ text: string; chunks: number; waits: number }> {
  let text = '';
  let chunks = 0;
  let waits = 0;
  const io: Io = {
    out: (t) => {
      chunks++;
      text += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: () => undefined,
    ready: () => {
      waits++;
      return Promise.resolve();
    },
  };
  await printJson(io, value);
  return { text, chunks, waits };
}

/** Values with what JSON.stringify treats specially: toJSON, undefined, functions, symbols, dates, boxed primitives, odd keys. */
const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(() => 1),
  fc.constant(Symbol('s')),
  fc.constant(new Date(0)),
  fc.constant(Object(5) as unknown),
  fc.constant(Object('boxed') as unknown),
  fc.constant({ toJSON: (key: string) => `key:${key}` }),
  fc.constant({ toJSON: () => undefined }),
  fc.constant(Number.NaN),
  fc.constant(-0),
  fc.constant('line\nbreak "quoted" \u2028 \ud800'),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    odd,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('0', '10', '__proto__x', '')), tie('value'), { maxKeys: 5 }),
  ),
}));

describe('printJson (streamed JSON output)', () => {
  it('writes exactly JSON.stringify(value, null, 2) for any value (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), value, { maxKeys: 6 }).filter((v) => stringify(v) !== undefined),
        async (v) => {
          assert.equal([...jsonLines(v)].join('\n'), stringify(v));
          assert.equal((await printed(v)).text, `${stringify(v)}\n`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('toJSON runs once with its key at every level; boxed primitives (any realm), BigInt and odd prototypes as JSON.stringify has them', async () => {
    const vm = await import('node:vm');
    const keys: string[] = [];
    const logged = { toJSON: (key: string) => (keys.push(key), { key }) };
    const cases: unknown[] = [
      { a: { b: { toJSON: () => new Date(0) } } },
      { toJSON: () => new Date(0) },
      { a: { toJSON: () => Object.assign(new Number(3), { toJSON: () => 'x' }) } },
      { a: [{ toJSON: () => Object.assign(new Number(3), { toJSON: () => 'x' }) }] },
      {
        a: vm.runInNewContext('new Number(7)'),
        b: vm.runInNewContext('new String("s")'),
        c: vm.runInNewContext('[1, {d: new Boolean(false)}]'),
      },
      { a: Object.setPrototypeOf(new Number(3), Object.prototype) },
      { a: logged, b: [logged, [logged]], c: { d: logged, e: { f: logged } } },
      { a: { toJSON: () => undefined }, b: [{ toJSON: () => undefined }], c: { d: { toJSON: () => undefined } } },
      { [`__proto__`]: 1, '': { '': [] } },
      Object.assign(Object.create(null), { x: [undefined, () => 1, Symbol('s')], y: undefined }),
      { holes: [1, , 3], nested: [[, 'x']] },
    ];
    for (const v of cases) {
      keys.length = 0;
      const expected = stringify(v);
      const expectedKeys = [...keys];
      keys.length = 0;
      assert.equal((await printed(v)).text, `${expected}\n`, expected);
      assert.deepEqual(keys, expectedKeys, 'toJSON called with the same keys, as often');
    }
    for (const bad of [{ a: Object(1n) }, Object(1n), { a: { b: 1n } }, { a: [1n] }]) {
      assert.throws(() => stringify(bad), TypeError);
      await assert.rejects(printed(bad), TypeError);
    }
  });

  it('a lazy list is written as the array it stands for, its items made one by one', async () => {
    let made = 0;
    const ids = new LazyJsonList(5, (i) => (made++, `id-${i}`));
    const v = { a: ids, b: [], c: new LazyJsonList(0, () => 'x'), nested: { deeper: new LazyJsonList(2, (i) => ({ i })) } };
    const { text } = await printed(v);
    assert.equal(text, `${stringify(v)}\n`);
    assert.ok(text.includes('"id-4"'), text);
    assert.equal(made, 10, 'the top-level list made its items once for printJson and once for JSON.stringify');
  });

  it('a long list is written in chunks of whole lines, waiting for the output between them', async () => {
    const v = { ids: new LazyJsonList(200_000, (i) => `e${i.toString(16).padStart(8, '0')}`), tail: { ok: true } };
    const { text, chunks, waits } = await printed(v);
    assert.equal(text, `${stringify(v)}\n`);
    assert.ok(chunks > 40, `${chunks} chunks`);
    assert.equal(waits, chunks - 1);
  });

  it('a value nested 100,000 levels below the top is JSON.stringify(value) as it is; a cycle throws as JSON.stringify does', async () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    let expected: string | undefined;
    let error: unknown;
    try {
      expected = stringify({ deep });
    } catch (err) {
      error = err;
    }
    if (expected !== undefined) assert.equal((await printed({ deep })).text, `${expected}\n`);
    else await assert.rejects(printed({ deep }), (err: Error) => err.constructor === (error as Error).constructor);
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    await assert.rejects(printed(cycle), TypeError);
    const listCycle: unknown[] = [];
    listCycle.push({ back: listCycle });
    await assert.rejects(printed({ listCycle }), TypeError);
  });
});
