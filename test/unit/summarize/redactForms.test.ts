/**
 * Issue 20 item 6: every form a provider can produce from a known key is
 * redacted (case changes, hex, base64, URL encodings, separators between its
 * characters, any run of 12 or more of its characters), in linear time.
 */
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { ALTERED_KEY_ECHO_FORMS, OBFUSCATED_KEY_ECHO_FORMS, base32, keyEcho } from '../../support/fakeProvider';
import { holdsKeyRun, revealsKey } from '../../support/keyRuns';
import { containsKnownSecret, redact, REDACTED, redactKnownSecrets, SECRET_RUN_CHARS } from '../../../src/engine/secrets/redact';

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

  describe('issue 38 item 2: obfuscated forms (normalized before matching)', () => {
    for (const form of OBFUSCATED_KEY_ECHO_FORMS) {
      it(`${form}: redacted, the text around it kept as it was`, () => {
        const echo = keyEcho(KEY, form);
        assert.ok(revealsKey(echo, KEY), `the checker sees the key in ${form}`);
        const out = redactKnownSecrets(`before: ${echo} :after`, [KEY]);
        assert.ok(out.startsWith('before: ') && out.endsWith(' :after'), out);
        assert.ok(out.includes(REDACTED), out);
        assert.ok(!revealsKey(out, KEY), out);
      });
    }

    /** Characters a provider may put between a key's characters. */
    const separator = fc.constantFrom(
      ...['', '', '-', '.', '|', ':', '_', ' ', '\u206a', '\u034f', '\ufe0f', '\u061c', '\u{e0020}', '\u0301', '\u3164'],
      ...['\u115f', '\u1160', '\uffa0', '\u2800', '\u200d', '\u00ad', '&#8203;', '&hyphen;', '&period;', '\\u200b'],
    );
    /** One character of the key, spelled one of the ways a provider may spell it. */
    const spelling = fc.constantFrom<(c: string) => string>(
      (c) => c,
      (c) => c.toUpperCase(),
      (c) => String.fromCodePoint(c.charCodeAt(0) + 0xfee0),
      (c) => `&#${c.charCodeAt(0)};`,
      (c) => `&#X${c.charCodeAt(0).toString(16).toUpperCase()};`,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      (c) => `\\u{${c.charCodeAt(0).toString(16)}}`,
      (c) => `\\x${c.charCodeAt(0).toString(16)}`,
    );
    // Text around it, of characters the key does not hold (a key character next to a run is rightly part of it).
    const prose = fc.stringMatching(/^[cjCJ ,.]{0,20}$/);

    it('fast-check: any run of 12+ characters of the key, each spelled any way, any mix of separators between them, is redacted', () => {
      fc.assert(
        fc.property(
          fc.nat(KEY.length - SECRET_RUN_CHARS),
          fc.nat(KEY.length),
          fc.array(separator, { minLength: KEY.length, maxLength: KEY.length }),
          fc.array(spelling, { minLength: KEY.length, maxLength: KEY.length }),
          fc.boolean(),
          prose,
          prose,
          (start, extra, seps, spell, reverse, before, after) => {
            const end = Math.min(KEY.length, start + SECRET_RUN_CHARS + extra);
            const chars = [...KEY.slice(start, end)];
            if (reverse) chars.reverse();
            const run = chars.map((c, i) => spell[i](c) + (i < chars.length - 1 ? seps[i] : '')).join('');
            const out = redactKnownSecrets(`${before} ${run} ${after}`, [KEY]);
            assert.ok(out.startsWith(`${before} `) && out.endsWith(` ${after}`), JSON.stringify(out));
            assert.ok(!revealsKey(out, KEY), JSON.stringify(out));
          },
        ),
        { numRuns: 400 },
      );
    });

    it('fast-check: the key in hex, in any common spelling (case, separators, 0x or \\x prefixes), is redacted', () => {
      const hex = Buffer.from(KEY, 'utf8').toString('hex').match(/../g)!;
      fc.assert(
        fc.property(
          fc.constantFrom('', ':', ' ', '-', ', ', '\n'),
          fc.constantFrom('', '0x', '0X', '\\x', '%'),
          fc.boolean(),
          fc.nat(hex.length - 8),
          fc.stringMatching(/^[jJ ,.]{0,20}$/), // no hex digit next to the hex

          (sep, prefix, upper, start, before) => {
            const bytes = hex.slice(start).map((h) => prefix + (upper ? h.toUpperCase() : h));
            const out = redactKnownSecrets(`${before} ${bytes.join(sep)} end`, [KEY]);
            assert.ok(out.startsWith(`${before} `) && out.endsWith(' end'), JSON.stringify(out));
            assert.ok(!revealsKey(out, KEY), JSON.stringify(out));
            // The whole spelled form goes, its first prefix included (a `%` is punctuation, left as it was;
            // `\x` escapes decode to the key's characters: a run once there are 12, from the first letter or digit).
            const decodedFromKeyChar =
              bytes.length >= SECRET_RUN_CHARS && /^[a-z0-9]$/i.test(String.fromCharCode(parseInt(hex[start], 16)));
            if (prefix !== '%' && (prefix !== '\\x' || decodedFromKeyChar)) assert.equal(out, `${before} ${REDACTED} end`);
          },
        ),
        { numRuns: 300 },
      );
    });

    it('fast-check: the key in base64 or base32 at any offset (any byte before it) is redacted', () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 6 }), fc.boolean(), (pad, b32) => {
          const bytes = Buffer.concat([Buffer.from(pad), Buffer.from(KEY, 'utf8')]);
          const encoded = b32 ? base32(bytes) : bytes.toString('base64');
          const out = redactKnownSecrets(`x ${encoded} y`, [KEY]);
          assert.ok(out.includes(REDACTED), out);
          assert.ok(!out.includes(encoded.slice(Math.ceil((pad.length * 8) / (b32 ? 5 : 6)) + 1, -2)), out);
        }),
        { numRuns: 200 },
      );
    });

    it('text without the key is unchanged, escapes, entities and non-ASCII included; 1 MB of hostile escapes is one pass', () => {
      const plain = 'ordinary: https://example.com/a-b.c?x=1&amp;y=2 0x1f \\u0041 &#65; ｆｕｌｌ é \u3164 done';
      assert.equal(redact(plain, [KEY]), plain);
      for (const unit of ['&nbsp', '\\u{', '\\u00', '&#x', '0x0x', '\u0301\u3164ｓ']) {
        const hostile = unit.repeat(Math.ceil((1 << 20) / unit.length));
        assert.equal(redactKnownSecrets(hostile, [KEY]), hostile);
      }
    });
  });
});
