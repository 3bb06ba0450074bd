// The one order of a session list and how long ago a session was active (issue 34 item 3): engine/tree/sessionOrder.ts.
import * as assert from 'node:assert/strict';
import { byLastActivity, relativeTime } from '../../../src/engine/tree/sessionOrder';

const NOW = Date.UTC(2026, 11, 8, 12, 0, 0);
const ago = (seconds: number) => NOW - seconds * 1000;

describe('session order and relative times (issue 34 item 3)', () => {
  it('says how long ago in the largest unit that fits, rounded, and the date after a month', () => {
    assert.equal(relativeTime(ago(0), NOW), 'just now');
    assert.equal(relativeTime(ago(59), NOW), 'just now');
    assert.equal(relativeTime(ago(60), NOW), '1 min ago');
    assert.equal(relativeTime(ago(5 * 60 + 20), NOW), '5 min ago');
    assert.equal(relativeTime(ago(59 * 60), NOW), '59 min ago');
    assert.equal(relativeTime(ago(3 * 3600), NOW), '3 h ago');
    assert.equal(relativeTime(ago(23 * 3600), NOW), '23 h ago');
    assert.equal(relativeTime(ago(4 * 86400), NOW), '4 d ago');
    assert.equal(relativeTime(ago(29 * 86400), NOW), '29 d ago');
    const old = ago(40 * 86400);
    assert.equal(relativeTime(old, NOW), new Date(old).toLocaleDateString());
  });

  it('a time after now (a clock ahead, a hostile timestamp) is "just now"; no time is nothing', () => {
    assert.equal(relativeTime(NOW + 3600_000, NOW), 'just now');
    assert.equal(relativeTime(0, NOW), '');
  });

  it('orders newest activity first; equal times by path; a session without activity last; the input untouched', () => {
    const list = [
      { file: '/s/b.jsonl', lastActivityMs: ago(60) },
      { file: '/s/none.jsonl', lastActivityMs: undefined },
      { file: '/s/a.jsonl', lastActivityMs: ago(60) },
      { file: '/s/new.jsonl', lastActivityMs: ago(1) },
      { file: '/s/old.jsonl', lastActivityMs: ago(86400) },
    ];
    const copy = list.map((x) => ({ ...x }));
    assert.deepEqual(
      byLastActivity(list, (x) => x).map((x) => x.file),
      ['/s/new.jsonl', '/s/a.jsonl', '/s/b.jsonl', '/s/old.jsonl', '/s/none.jsonl'],
    );
    assert.deepEqual(list, copy, 'a new array; the list is not sorted in place');
  });
});
