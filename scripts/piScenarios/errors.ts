/**
 * Scenario "errors": errors the model works around. A tool that does not exist (`search`: Pi answers "Tool
 * search not found") replaced by bash grep, which finds the FIXMEs (file:line); a write to a path that is a
 * directory (EISDIR) redone at another path; after the fixes `grep -c FIXME … | grep -v ':0'` exits 1 with no
 * output, which means none is left; the specs pass; the user signs off.
 */
import { bash, calls, edit, read, say, write } from './answers';
import { INVENTORY_JS, lineOf, PARSER_JS, REPORT_SH, reportOutput, STOCK, stockroomFiles } from './stockroom';
import type { Scenario } from './types';

const FIXMES = [
  { file: 'src/inventory.js', text: 'a negative quantity silently lowers the stock', source: INVENTORY_JS },
  { file: 'src/parser.js', text: 'a trailing space in the last column is kept', source: PARSER_JS },
  { file: 'scripts/report.sh', text: 'blank lines are counted as rows', source: REPORT_SH },
].map((f) => ({ ...f, line: lineOf(f.source, `FIXME: ${f.text}`) }));
const at = (f: (typeof FIXMES)[number]) => `${f.file}:${f.line}`;
const LIST = ['FIXMEs found in the code:', ...FIXMES.map((f) => `- ${at(f)} ${f.text}`)].join('\n') + '\n';

export const errors: Scenario = {
  name: 'errors',
  about:
    'A missing tool replaced by grep (FIXMEs at file:line), a write to a directory redone elsewhere, grep exit 1 meaning none left, sign-off',
  files: stockroomFiles(),
  steps: [
    {
      label: 'find fixmes',
      action: { prompt: 'Find every FIXME in the code and tell me where they are.' },
      answers: [
        calls("I'll search the project for FIXME markers.", { name: 'search', arguments: { pattern: 'FIXME', path: '.' } }),
        calls('There is no search tool here, so I will use grep instead.', bash('grep -n FIXME src/*.js scripts/*.sh')),
        say([`There are ${FIXMES.length} FIXMEs:`, '', ...FIXMES.map((f) => `- \`${at(f)}\`: ${f.text}`)].join('\n')),
      ],
      expect: ['Tool search not found', ...FIXMES.map((f) => `${at(f)}:`)],
    },
    {
      label: 'save the list',
      action: { prompt: "Save that list under notes/ so we don't lose it." },
      answers: [
        calls('', write('notes', LIST)),
        calls(
          '`notes` is a directory, so that write failed. I will write the list to a file inside it instead.',
          write('notes/fixme.txt', LIST),
        ),
        say(
          'Saved the list to `notes/fixme.txt`. (The first attempt wrote to `notes` itself, which is a directory, and failed without writing anything.)',
        ),
      ],
      expect: ['EISDIR', 'Successfully wrote', 'notes/fixme.txt'],
    },
    {
      label: 'anything left behind',
      action: { prompt: 'Did that failed first attempt leave anything behind in notes/?' },
      answers: [
        calls('', bash('ls notes')),
        say('No. `notes/` is still a directory with `aisles.txt`, `fixme.txt` and `suppliers.txt`; the failed write changed nothing.'),
      ],
      expect: ['aisles.txt\nfixme.txt\nsuppliers.txt'],
    },
    {
      label: 'fix them',
      action: { prompt: 'Now fix all three.' },
      answers: [
        calls('', read('src/inventory.js'), read('src/parser.js'), read('scripts/report.sh')),
        calls(
          'Fixing each one where it is:',
          edit('src/inventory.js', [
            '  // FIXME: a negative quantity silently lowers the stock\n',
            '  if (quantity <= 0) throw new RangeError(`quantity must be positive, got ${quantity}`);\n',
          ]),
          edit(
            'src/parser.js',
            ['  // FIXME: a trailing space in the last column is kept\n', ''],
            ["    const cells = line.split(',');", "    const cells = line.split(',').map((c) => c.trim());"],
          ),
          edit(
            'scripts/report.sh',
            ['# FIXME: blank lines are counted as rows\n', ''],
            ["'NR > 1 { units", "'NR > 1 && NF > 0 { units"],
            ["'NR > 1 { total", "'NR > 1 && NF > 0 { total"],
          ),
        ),
        calls('Checking that no FIXME is left:', bash("grep -c FIXME src/*.js scripts/*.sh | grep -v ':0'")),
        calls(
          'grep printed nothing and exited with code 1: every file has a count of 0, so no FIXME is left. Now the specs.',
          bash('node spec/run.js'),
        ),
        say(
          [
            'All three are fixed:',
            '',
            `- \`src/inventory.js\`: \`addStock\` throws \`RangeError("quantity must be positive, got <n>")\` for a quantity of 0 or less.`,
            '- `src/parser.js`: every cell is trimmed, so trailing spaces are gone.',
            '- `scripts/report.sh`: both awk programs skip blank lines (`NF > 0`).',
            '',
            'No FIXME is left (the grep found none) and the specs pass: 4 of 4.',
          ].join('\n'),
        ),
      ],
      expect: [
        'Successfully replaced 1 block(s) in src/inventory.js',
        'Successfully replaced 2 block(s) in src/parser.js',
        'Successfully replaced 3 block(s) in scripts/report.sh',
        'Command exited with code 1',
        '4 of 4 specs passed',
      ],
    },
    {
      label: 'mark fixed in notes',
      action: { prompt: 'Mark them as fixed in the notes file.' },
      answers: [
        calls('', edit('notes/fixme.txt', ...FIXMES.map((f): [string, string] => [`- ${at(f)} `, `- [fixed] ${at(f)} `]))),
        say('Marked all three entries in `notes/fixme.txt` as `[fixed]`.'),
      ],
      expect: ['Successfully replaced 3 block(s) in notes/fixme.txt'],
    },
    {
      label: 'report unchanged',
      action: { prompt: 'Does the report still give the same totals after the awk change?' },
      answers: [calls('', bash('sh scripts/report.sh')), say('Yes, unchanged: aisle A 120, B 75, C 300, total 495 units.')],
      expect: reportOutput(STOCK).split('\n'),
    },
    {
      label: 'sign-off',
      action: { prompt: 'looks good, thanks' },
      answers: [say("You're welcome. All three FIXMEs are fixed and the specs pass; nothing is left open.")],
    },
  ],
};
