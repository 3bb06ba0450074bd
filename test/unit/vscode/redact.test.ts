// redact(): keys Arbor has seen and credential-shaped tokens never reach a log line or a message.
import * as assert from 'assert';
import { redact, rememberSecret, REDACTED } from '../../../src/vscode/platform/redact';

describe('vscode redact', () => {
  it('removes remembered keys wherever they appear', () => {
    const key = 'my-own-key-format-1234567890';
    assert.strictEqual(redact(`bad key ${key}!`), `bad key ${key}!`.replace(key, key), 'not known yet: an unusual shape stays');
    rememberSecret(key);
    assert.strictEqual(redact(`bad key ${key}! (${key})`), `bad key ${REDACTED}! (${REDACTED})`);
    assert.ok(!redact(JSON.stringify({ error: { message: `key ${key}` } })).includes(key));
  });

  it('removes credential-shaped tokens a provider may echo', () => {
    const cases: [string, RegExp][] = [
      ['401 received Authorization: Bearer abcdefghijklmnop', /Bearer \[redacted\]$/],
      ['x-api-key: sk-ant-api03-AAAAAAAAAAAAAAAAAAAA', /^x-api-key: \[redacted\]$/],
      ['{"api_key": "zzzzzzzzzzzzzzzzzzzz"}', /"api_key": "\[redacted\]"/],
      ['Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUV', /provided: \[redacted\]$/],
      ['apiKey=qwertyuiopasdfgh&x=1', /apiKey=\[redacted\]&x=1/],
    ];
    for (const [input, expected] of cases) assert.match(redact(input), expected, input);
    assert.strictEqual(redact('Compact failed: 500 server error'), 'Compact failed: 500 server error');
    assert.strictEqual(redact('authorization required'), 'authorization required');
  });

  it('ignores empty and very short values', () => {
    rememberSecret('');
    rememberSecret(undefined);
    rememberSecret('abc');
    assert.strictEqual(redact('abc a b c'), 'abc a b c');
  });
});
