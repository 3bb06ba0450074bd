/**
 * Issue 20 item 6: every form a provider can produce from a known key is
 * redacted (case changes, hex, base64, URL encodings, separators between its
 * characters, any run of 12 or more of its characters), in linear time.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ALTERED_KEY_ECHO_FORMS, keyEcho } from '../../support/fakeProvider';
import { holdsKeyRun } from '../../support/keyRuns';
import { containsKnownSecret, REDACTED, redactKnownSecrets, SECRET_RUN_CHARS } from '../../../src/engine/secrets/redact';

const KEY = 'sk-ant-api03-Zq7LxV2mB9kR4tY8wE1uI6oP3aS5dF0gH';

describe('redaction of altered forms of a key', () => {
  for (const form of ALTERED_KEY_ECHO_FORMS) {
    it(`${form}: redacted, the text around it kept`, () => {
      const echo = keyEcho(KEY, form);
      const out = redactKnownSecrets(`before ${echo} after`, [KEY]);
      assert.ok(out.startsWith('before ') && out.endsWith(' after'), out);
      assert.ok(out.includes(REDACTED), out);
      assert.ok(!out.includes(echo), out);
      assert.ok(!holdsKeyRun(out, KEY), out);
      assert.ok(containsKnownSecret(echo, [KEY]));
    });
  }

  it('11 characters of the key are not a secret; text without the key is unchanged', () => {
    const eleven = KEY.slice(5, 5 + SECRET_RUN_CHARS - 1);
    assert.equal(redactKnownSecrets(`x ${eleven} y`, [KEY]), `x ${eleven} y`);
    assert.equal(redactKnownSecrets('ordinary text, nothing to hide', [KEY]), 'ordinary text, nothing to hide');
  });

  it('fast-check: any run of 12+ characters of the key, in any case, with separators between its characters, is redacted', () => {
    const sep = fc.constantFrom('', ' ', '\u200b', '\n', '\r\n', '\u00a0', '\ufeff', '\t');
    fc.assert(
      fc.property(
        fc.nat(KEY.length - SECRET_RUN_CHARS),
        fc.nat(KEY.length),
        fc.array(sep, { minLength: KEY.length, maxLength: KEY.length }),
        fc.array(fc.boolean(), { minLength: KEY.length, maxLength: KEY.length }),
        fc.string({ maxLength: 30 }),
        fc.string({ maxLength: 30 }),
        (start, extra, seps, upper, before, after) => {
          const end = Math.min(KEY.length, start + SECRET_RUN_CHARS + extra);
          let run = '';
          for (let i = start; i < end; i++) run += (upper[i] ? KEY[i].toUpperCase() : KEY[i].toLowerCase()) + (i < end - 1 ? seps[i] : '');
          const out = redactKnownSecrets(`${before}${run}${after}`, [KEY]);
          assert.ok(!holdsKeyRun(out, KEY), JSON.stringify(out));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a 10 MB answer holding every form is redacted in one linear pass (every form gone)', () => {
    const forms = ALTERED_KEY_ECHO_FORMS.map((f) => keyEcho(KEY, f));
    const filler = 'lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(20);
    const parts: string[] = [];
    let size = 0;
    for (let k = 0; size < 10 * 1024 * 1024; k++) {
      const piece = `${filler}${forms[k % forms.length]} `;
      parts.push(piece);
      size += piece.length;
    }
    const out = redactKnownSecrets(parts.join(''), [KEY]);
    assert.ok(!holdsKeyRun(out, KEY));
    assert.ok(out.length < size);
  });
});
