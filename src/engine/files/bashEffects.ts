/**
 * What a shell command may do to files, decided conservatively and in time
 * linear in the command's length.
 *
 * - Read-only: every part of the command (split at `|`, `;`, `&`, newlines;
 *   quotes are not interpreted, which only makes more parts) starts with a
 *   program from a short list of readers used with read-only options, and
 *   there is no command substitution and no output redirection other than
 *   to /dev/null or between stdout and stderr. Such a command changes no file.
 * - Anything else may change any file. The files whose path, a parent folder
 *   of it, or whose name appears as a word of the command become unknown;
 *   every other file keeps the content the session derived, marked only
 *   "assumed" (never verified) until a write or a full read establishes it again.
 */

const READERS = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'ls',
  'pwd',
  'echo',
  'printf',
  'cut',
  'tr',
  'nl',
  'diff',
  'cmp',
  'stat',
  'file',
  'du',
  'df',
  'which',
  'true',
  'false',
  'date',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'test',
  '[',
  'column',
  'sort',
  'uniq',
  'find',
  'sed',
  'git',
  'tree',
  'whoami',
  'uname',
  'env',
  'printenv',
]);
const FIND_WRITERS = new Set(['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);
const GIT_READERS = new Set(['status', 'diff', 'log', 'show', 'ls-files', 'blame', 'rev-parse']);
const HARMLESS_REDIRECTS = [
  '2>&1',
  '1>&2',
  '>&2',
  '&>/dev/null',
  '2>/dev/null',
  '1>/dev/null',
  '>/dev/null',
  '> /dev/null',
  '2> /dev/null',
];

export function isReadOnlyCommand(command: string): boolean {
  if (command.includes('`') || command.includes('$(') || command.includes('<(') || command.includes('>(')) return false;
  let rest = command;
  for (const r of HARMLESS_REDIRECTS) rest = rest.split(r).join(' ');
  if (rest.includes('>')) return false;
  const parts = rest.split(/[|;&\n]/);
  for (const part of parts) {
    const words = part.split(/[ \t\r]+/).filter((w) => w.length > 0);
    if (words.length === 0) continue;
    if (!segmentIsReadOnly(words)) return false;
  }
  return true;
}

function segmentIsReadOnly(words: string[]): boolean {
  const [program, ...args] = words;
  if (!READERS.has(program)) return false;
  switch (program) {
    case 'sort':
      return !args.some((a) => a === '-o' || a.startsWith('--output') || (/^-[a-zA-Z]*o/.test(a) && !a.startsWith('--')));
    case 'uniq':
      return args.filter((a) => !a.startsWith('-')).length <= 1;
    case 'find':
      return !args.some((a) => FIND_WRITERS.has(a));
    case 'sed': {
      if (!args.includes('-n') || args.some((a) => a.startsWith('-i') || a.startsWith('--in-place'))) return false;
      const script = args.find((a) => !a.startsWith('-'));
      return script !== undefined && !/[wWe]/.test(script);
    }
    case 'git':
      return args.length > 0 && GIT_READERS.has(args[0]);
    case 'env':
    case 'printenv':
      return args.length === 0;
    default:
      return true;
  }
}

/** The words of a command, as file-name candidates: split at blanks, quotes and shell punctuation; "./" and a trailing "/" dropped. */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  for (const raw of command.split(/[\s'"`;|&()<>=:,{}]+/)) {
    let w = raw;
    while (w.startsWith('./')) w = w.slice(2);
    while (w.length > 1 && w.endsWith('/')) w = w.slice(0, -1);
    if (w) words.push(w);
  }
  return words;
}
