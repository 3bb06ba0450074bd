import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { BpeCounter } from '../../../src/engine/tokens/bpeCount';
import { isPatternSpace, O200K_PRE_TOKEN, preTokenEnd } from '../../../src/engine/tokens/preTokens';
import { findTable, loadRankTable, O200K_TABLE_FILE, tablePathCandidates, type RankTable } from '../../../src/engine/tokens/o200kTable';
import { countTextTokens } from '../../../src/engine/tokens/countText';
import { countTokens, preloadTokenizer, tokenizerLoaded } from '../../../src/engine/tokens/estimators';
import { fixturePath, repoRoot } from '../../support/fixtures';
import { base64Blob, fill } from '../../support/hostileText';
import { REFERENCE_PATTERN, referenceCount, referenceRanks } from '../../support/referenceTokenizer';
import { o200kGenerator as generator } from '../../support/o200kGenerator';

// OpenAI's reference tokenizer (tiktoken) is the oracle: the counter must give exactly its counts.
const exact = referenceCount;
const ranks = referenceRanks();

/** Every .jsonl session under a folder. */
function sessionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.jsonl'))
    .map((d) => path.join(d.parentPath, d.name))
    .sort();
}

/** Every string in a session: each line (parsed or not) and every string value in it. */
function sessionTexts(file: string): string[] {
  const texts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') texts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) (texts.push(k), walk(x));
  };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    texts.push(line);
    try {
      walk(JSON.parse(line));
    } catch {
      // a deliberately broken line: its raw text is enough
    }
  }
  return texts;
}

/** Every token of the reference's data (tiktoken's o200k_base) is at its rank in `table`, and there is no other. */
function assertReferenceRanks(table: RankTable): void {
  assert.equal(table.size, ranks.length);
  let checked = 0;
  ranks.forEach((bytes, rank) => {
    assert.equal(table.rank(bytes, 0, bytes.length), rank, `rank ${rank}`);
    checked++;
  });
  assert.equal(checked, 199_998);
}

describe("o200k counter: exactly the reference tokenizer's counts (tiktoken), from a table that loads fast (issues 11 and 22)", () => {
  let table: RankTable;
  let counter: BpeCounter;
  before(() => {
    table = loadRankTable();
    counter = new BpeCounter(table);
  });

  it('loads the table the build writes, with every token at its rank', () => {
    assert.equal(path.basename(table.file), 'o200k.bin');
    assertReferenceRanks(table);
    const utf8 = new TextEncoder();
    const padded = Uint8Array.from([0x78, ...utf8.encode(' hello'), 0x78]);
    assert.equal(
      table.rank(padded, 1, padded.length - 1),
      ranks.findIndex((t) => t.equals(Buffer.from(' hello'))),
      'a range inside a larger buffer',
    );
    assert.equal(table.rank(padded, 0, padded.length), -1);
    const vscodeignore = readFileSync(path.join(repoRoot, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(vscodeignore.includes(`!dist/${O200K_TABLE_FILE}`), 'the .vsix holds the table next to dist/extension.js');
  });

  it("the build reads the ranks from gpt-tokenizer's o200k_base data; the table it writes from them is tiktoken's, entry by entry", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-o200k-'));
    try {
      const built = path.join(dir, 'o200k.bin');
      const { ranksFile } = generator('write', { out: built });
      assert.equal(ranksFile, require.resolve('gpt-tokenizer/data/o200k_base.tiktoken'), "gpt-tokenizer's rank file");
      assertReferenceRanks(loadRankTable(built));
      assert.ok(readFileSync(built).equals(readFileSync(table.file)), 'the table the build wrote (dist/o200k.bin) is this one');

      // A damaged rank file stops the build with the file and line, and writes no table.
      const lines = readFileSync(ranksFile, 'latin1').split('\n');
      const damaged = path.join(dir, 'o200k_base.tiktoken');
      const cases: [string, string[], RegExp][] = [
        ['a rank out of order', [lines[0], lines[2], lines[1]], /:2: expected "<token in base64> 1"/],
        ['a token twice', [lines[0], lines[0].replace(/ 0$/, ' 1')], /:2: a token an earlier line has/],
        ['not base64', [lines[0], 'I!== 1'], /:2: the token is not 1 to 255 bytes in base64/],
        ['a byte without a token', lines.slice(1, 300).map((l, i) => l.replace(/ \d+$/, ` ${i}`)), /no token for byte 33/],
      ];
      for (const [what, text, expected] of cases) {
        writeFileSync(damaged, `${text.join('\n')}\n`);
        const { error } = generator('bytes', { ranks: damaged });
        assert.ok(error?.includes(damaged) && expected.test(error), `${what}: ${error}`);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a missing table is an error naming where it was looked for; a damaged one names the file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-o200k-'));
    try {
      const missing = path.join(dir, 'nowhere', 'o200k.bin');
      assert.throws(
        () => loadRankTable(missing),
        (e: Error) => e.message.includes(missing),
      );
      const candidates = tablePathCandidates(path.join(dir, 'a', 'b', 'c', 'd'));
      assert.deepEqual(candidates, [path.join(dir, 'a', 'b', 'c', 'd', 'o200k.bin'), path.join(dir, 'dist', 'o200k.bin')]);
      assert.throws(
        () => findTable(candidates),
        (e: Error) => candidates.every((c) => e.message.includes(c)) && /npm run build/.test(e.message),
      );
      const damaged = path.join(dir, 'o200k.bin');
      writeFileSync(damaged, readFileSync(table.file).subarray(0, 1000));
      assert.throws(
        () => loadRankTable(damaged),
        (e: Error) => e.message.includes(damaged) && /invalid/.test(e.message),
      );
      writeFileSync(damaged, 'not a table');
      assert.throws(
        () => loadRankTable(damaged),
        (e: Error) => e.message.includes(damaged) && /not a table/.test(e.message),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.equal(findTable(), path.join(repoRoot, 'dist', 'o200k.bin'), "from out/, the repository's dist/");
  });

  it("splits text with the encoding's pattern: tiktoken's, translated (its \\s is Unicode White_Space, its (?i) folds 'ſ to 's)", () => {
    // The pattern translated in preTokens.ts; a change of the reference's pattern must be translated again.
    assert.equal(
      REFERENCE_PATTERN,
      String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
        String.raw`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|` +
        String.raw`\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
    );
    assert.ok(O200K_PRE_TOKEN.flags.includes('v'));
    for (let c = 0; c < 0x10000; c++)
      assert.equal(isPatternSpace(c), /^\p{White_Space}$/u.test(String.fromCharCode(c)), `U+${c.toString(16)}`);
    // Where the two whitespaces differ, and the folded contraction: counts agree with the reference.
    for (const t of ["\ufeff's", '\ufeff  x', 'a\u0085  \nb', 'x\u0085 \n\u0085', "\tDON'ſ'SDON", "x'ſ", "x'ş", "Hello'ſ'LLa", "DON'Ss"])
      assert.equal(counter.count(t), exact(t), JSON.stringify(t));
  });

  /** The pre-tokens preTokenEnd finds (its ASCII matcher, else the pattern). */
  function preTokens(text: string): string[] {
    const out: string[] = [];
    for (let i = 0; i < text.length; i = preTokenEnd(text, i)) out.push(text.slice(i, preTokenEnd(text, i)));
    return out;
  }
  const patternPreTokens = (text: string) => [...text.matchAll(new RegExp(O200K_PRE_TOKEN.source, 'gv'))].map((m) => m[0]);

  it('its ASCII pre-token matcher ends every pre-token where the pattern does', () => {
    const ascii = fc.string({
      unit: fc.constantFrom(...'aZ09 \t\n\r\v\f\x1c\0\'sSdDmMtTlLvVeErR./=-_"#(){}<|>!?,;:*+&%$@~`^[]\\'),
      maxLength: 60,
    });
    const mostlyAscii = fc
      .array(fc.oneof(ascii, fc.constantFrom('é', 'É', '\u00a0', '\u3000', '\u2028', '١', '²', '\u0301', '😀', '\ud800', '漢', 'ǅ', 'ʰ')), {
        maxLength: 6,
      })
      .map((a) => a.join(''));
    fc.assert(
      fc.property(fc.oneof(ascii, mostlyAscii), (t) => {
        assert.deepEqual(preTokens(t), patternPreTokens(t));
      }),
      { numRuns: 20_000 },
    );
    for (const t of [
      "don't DON'T We'LL they're I'M it's",
      'HTMLParser getHTTPResponse ABC',
      'a\n\n  b  \t c \r\n\r\n',
      '*/\n//!\n/x',
      ' !!\n/ \t.x 123456 7',
      '\x1c\x1fA\x7fb',
      '  ',
      ' ',
      '\t\n',
      "'s'S''ll'LL've",
    ]) {
      assert.deepEqual(preTokens(t), patternPreTokens(t), JSON.stringify(t));
    }
  });

  it('the estimator loads the table once, on preload or on the first count', () => {
    preloadTokenizer();
    assert.ok(tokenizerLoaded());
    assert.equal(preloadTokenizer(), false, 'already loaded');
  });

  it('every text of every session (Pi oracle sessions, test fixtures, the sample) counts as the reference counts it', () => {
    const files = [...sessionFiles(fixturePath()), ...sessionFiles(path.join(repoRoot, 'samples'))];
    assert.ok(files.some((f) => f.includes('pi-oracle')) && files.length > 15, files.join('\n'));
    let texts = 0;
    let tokens = 0;
    for (const file of files) {
      const whole = readFileSync(file, 'utf8');
      assert.equal(counter.count(whole), exact(whole), file);
      assert.deepEqual(preTokens(whole), patternPreTokens(whole), file);
      for (const t of sessionTexts(file)) {
        const want = exact(t);
        assert.equal(counter.count(t), want, `${path.basename(file)}: ${JSON.stringify(t.slice(0, 120))}`);
        // What the estimator counts (in pieces, countText.ts) is what it counted with the reference.
        assert.equal(countTokens(t), countTextTokens(t, exact), JSON.stringify(t.slice(0, 120)));
        texts++;
        tokens += want;
      }
    }
    assert.ok(texts > 5000 && tokens > 100_000, `${texts} texts, ${tokens} tokens`);
  });

  it('a leading BOM is a token like any other (gpt-tokenizer dropped it while merging), a lone surrogate is U+FFFD, as the reference reads them', () => {
    for (const t of ['\ufeff名', '\ufeff\u1784', 'x\ufeff名 \ufeff\u1784', '\ufeffusing', '\ufeff\ufeff', '\ufeff'])
      assert.equal(counter.count(t), exact(t), JSON.stringify(t));
    assert.equal(counter.count('\ufeff名'), 2);
    for (const t of ['\ud800', '\ud800s', ' \udc00\ud800', '\ud83d\n\n', '€\udfff', '\ufffd\ud800', 'a\ud800b'])
      assert.equal(counter.count(t), exact(t), JSON.stringify(t));
    assert.equal(counter.count('\ud800'), counter.count('\ufffd'));
  });

  it('every code point, in blocks: alone, after a letter, between spaces and digits, before a newline, doubled', () => {
    let compared = 0;
    for (let block = 0; block < 0x110000; block += 256) {
      const chars: string[] = [];
      for (let cp = block; cp < block + 256; cp++) if (cp < 0xd800 || cp > 0xdfff) chars.push(String.fromCodePoint(cp));
      for (const t of [chars.join(''), chars.map((c) => `a${c} `).join(''), chars.map((c) => ` ${c}1\n${c}${c}'s`).join('')]) {
        assert.equal(counter.count(t), exact(t), `block U+${block.toString(16)}: ${JSON.stringify(t.slice(0, 40))}`);
        compared++;
      }
    }
    assert.equal(compared, 3 * 4352);
  });

  // Pieces that exercise every alternative of the pattern and the merge's corners.
  const pieces = [
    ...["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Re", "'rE", "'VE", "'M", "'LL", "'lL", "'D", "'", "''"],
    ...['I', 'don', 'DON', 'Hello', 'HELLO', 'hELLo', 'x', 'Éric', 'ǅungla', 'ʰ', 'ß', 'İ', 'ﬁ'],
    ...['0', '7', '12', '123', '1234', '3.14', '١٢٣', '²', 'Ⅻ', '½'],
    ...[
      ' ',
      '  ',
      '   ',
      '\t',
      '\n',
      '\r\n',
      '\r',
      '\n\n',
      ' \n',
      '\u00a0',
      '\u3000',
      '\u2028',
      '\u2029',
      '\u200b',
      '\f',
      '\v',
      '\ufeff',
      '\ufeff\ufeff',
    ],
    ...['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|endofprompt|>', '<|fim_prefix|>'],
    ...['😀', '👨‍👩‍👧‍👦', '🇺🇸', '👍🏽', '漢字', 'テキスト', '안녕하세요', 'नमस्ते', 'مرحبا', 'שלום', 'Привет', 'ελληνικά', 'ไทย'],
    ...['e\u0301', '\u0301', '\u0301\u0302\u0303', 'a\u20dd', '\u094d'],
    ...['\ud800', '\udfff', '\ud83d', '\ude00', '\udc00\ud800', '\ufffd', '\uffff', '\u{10ffff}', '\0'],
    ...[
      '.',
      '...',
      '//',
      '/*',
      '*/',
      '=>',
      '==',
      '===',
      '!=',
      '{',
      '}',
      '();',
      '\n/',
      '/\n',
      '#',
      '@',
      '`',
      '~',
      '$',
      '"',
      '\\',
      '+',
      '-',
      '_',
      '=\r\n',
    ],
    ...['using', '\ufeffusing', 'namespace', '\ufeff\n\n', '\ufeff//', '\ufeff#', '\ufeff名', '\ufeff\u1784', '名', '\u1784'],
    ...['\u0085', '\u0085\n', ' \u0085 ', 'ſ', "'ſ", 'ş', "'ş", 'K', '\u212a', '\u180e', '\u200b'],
  ];
  const mixed = (maxLength: number) =>
    fc
      .array(
        fc.oneof(
          { weight: 6, arbitrary: fc.constantFrom(...pieces) },
          { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
          { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
          {
            weight: 1,
            arbitrary: fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 4 }),
          },
          {
            weight: 1,
            arbitrary: fc.tuple(fc.constantFrom('a', ' ', '=', '\n', '1', '😀', 'é', '\t'), fc.nat(40)).map(([u, k]) => u.repeat(k)),
          },
        ),
        { maxLength },
      )
      .map((parts) => parts.join(''));

  it(
    'generated strings: full Unicode, emoji, CJK, combining marks, whitespace and newline mixes, contractions, digits, ' +
      'special-token text, lone surrogates, BOMs',
    () => {
      fc.assert(
        fc.property(mixed(40), (t) => {
          assert.equal(counter.count(t), exact(t));
        }),
        { numRuns: 4000 },
      );
      for (const unit of ['binary', 'grapheme', 'grapheme-composite'] as const) {
        fc.assert(
          fc.property(fc.string({ unit, maxLength: 80 }), (t) => {
            assert.equal(counter.count(t), exact(t));
          }),
          { numRuns: 1000 },
        );
      }
    },
  );

  it('stays exact when its cache of long pre-tokens fills and is emptied', () => {
    const words = Array.from(
      { length: 12_000 },
      (_, i) =>
        ' ' +
        (i * 7919)
          .toString(26)
          .replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)])
          .padStart(9, 'k'),
    );
    const text = words.join('');
    const fresh = new BpeCounter(table);
    assert.equal(fresh.count(text), exact(text));
    assert.equal(fresh.count(text), exact(text), 'a second time, from what the cache kept');
    assert.equal(
      words.reduce((s, w) => s + fresh.count(w), 0),
      words.reduce((s, w) => s + exact(w), 0),
    );
  });

  it('hostile text: long runs counted directly, and whole megabytes through countText', () => {
    const direct: Record<string, string> = {
      base64: base64Blob(3000),
      equals: '='.repeat(3000),
      spaces: ' '.repeat(3000),
      newlines: '\n'.repeat(1000) + 'x' + '\r\n'.repeat(500),
      whitespaceMix: fill(' \t \u00a0\n  \r\n\u3000', 3000),
      digits: fill('0123456789', 3000),
      letters: 'a'.repeat(3000),
      emoji: '😀'.repeat(1000),
      marks: 'e' + '\u0301'.repeat(1000),
      boms: '\ufeff'.repeat(3000),
      nel: fill(' \u0085\n\ufeff\t', 3000),
    };
    for (const [name, t] of Object.entries(direct)) assert.equal(counter.count(t), exact(t), name);
    const minifiedJs = fill('function(a,b){return a+b};var x=[1,2,3].map(function(y){return y*2}),s="<|endoftext|>";', 1024 * 1024);
    const huge: Record<string, string> = {
      minifiedJs,
      base64: base64Blob(256 * 1024),
      equals: '='.repeat(256 * 1024),
      spaces: ' '.repeat(256 * 1024) + 'end',
      whitespaceMix: fill(' \t\n \r\n   \u00a0', 256 * 1024),
      otherSpaces: fill('x\u0085  \n\u0085/\ufeff \ufeffy \u3000\n', 256 * 1024),
    };
    for (const [name, t] of Object.entries(huge)) assert.equal(countTokens(t), countTextTokens(t, exact), name);
  });
});
