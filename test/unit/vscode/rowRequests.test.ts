// RowRequests: reveals wait until VS Code has every answer for rows it asked for (a reveal racing one selects nothing).
import * as assert from 'assert';
import { RowRequests } from '../../../src/vscode/tree/rowRequests';

/** A promise settled from outside. */
function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** Lets every pending macrotask (and the microtasks before it) run. */
const turn = () => new Promise((r) => setImmediate(r));

describe('RowRequests (reveals wait for the rows VS Code asked for)', () => {
  it('is idle at once when nothing is in flight', async () => {
    assert.strictEqual(await new RowRequests().idle(), true);
  });

  it('waits for the last of overlapping requests, and passes their answers and failures through', async () => {
    const requests = new RowRequests();
    const a = deferred<string[]>();
    const b = deferred<string[]>();
    const answerA = requests.track(a.promise);
    const answerB = requests.track(b.promise);
    let idle = false;
    void requests.idle().then(() => (idle = true));
    a.resolve(['row']);
    assert.deepStrictEqual(await answerA, ['row']);
    await turn();
    assert.strictEqual(idle, false, 'one request still in flight');
    assert.strictEqual(requests.pending, 1);
    b.reject(new Error('cannot load'));
    await assert.rejects(answerB, /cannot load/);
    // Woken in the turn after the last answer (mocha's timeout fails the test if never).
    while (!idle) await turn();
    assert.strictEqual(requests.pending, 0);
  });

  it('resolves after the answer went out: a request made in the same turn keeps it waiting', async () => {
    const requests = new RowRequests();
    const first = deferred<number>();
    void requests.track(first.promise);
    let idle = false;
    void requests.idle().then(() => (idle = true));
    const second = deferred<number>();
    first.resolve(1);
    await first.promise;
    // VS Code asks again before the idle check runs.
    void requests.track(second.promise);
    await turn();
    await turn();
    assert.strictEqual(idle, false);
    second.resolve(2);
    while (!idle) await turn();
    assert.strictEqual(requests.pending, 0);
  });

  it('gives up after its timeout with false, and forgets the waiter', async () => {
    const requests = new RowRequests();
    const never = deferred<void>();
    void requests.track(never.promise);
    assert.strictEqual(await requests.idle(1), false);
    never.resolve();
    assert.strictEqual(await requests.idle(), true);
  });
});
