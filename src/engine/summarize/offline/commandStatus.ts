/**
 * What a shell command's exit status means, read per command: `grep` exiting
 * 1 found no match, `diff` exiting 1 found differences, `test` exiting 1 was
 * false. None of those is a failure, although Pi's bash tool reports every
 * non-zero exit as an error ("Command exited with code N"). The status of a
 * pipeline is its last command's (no pipefail in Pi's shell). Linear in the
 * command and the output; no regex with nested quantifiers.
 */

/** Programs whose exit status 1 is an answer, not a failure, and what that answer is. */
const EXIT_ONE_MEANS: Record<string, string> = {
  grep: 'exit 1: nothing matched',
  egrep: 'exit 1: nothing matched',
  fgrep: 'exit 1: nothing matched',
  rg: 'exit 1: nothing matched',
  ag: 'exit 1: nothing matched',
  ack: 'exit 1: nothing matched',
  diff: 'exit 1: the files differ',
  cmp: 'exit 1: the files differ',
  test: 'exit 1: the test was false',
  '[': 'exit 1: the test was false',
  '[[': 'exit 1: the test was false',
};

/** The program that decides a command's exit status: the first word of the last pipeline stage, without `sudo`, env assignments or a path. */
export function statusProgram(command: string): string {
  const text = command.length > 4000 ? command.slice(-4000) : command;
  // The last stage of the last command: split on `|` (not `||`), `;`, `&&`, `||` and line breaks.
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === ';' || c === '\n') start = i + 1;
    else if (c === '&' && text[i + 1] === '&') start = i + 2;
    else if (c === '|') start = text[i + 1] === '|' ? i + 2 : i + 1;
    if (text[i + 1] === '|' || (c === '&' && text[i + 1] === '&')) i++;
  }
  const words = text.slice(start).trim().split(/\s+/);
  let k = 0;
  while (
    k < words.length &&
    (words[k] === 'sudo' || words[k] === 'command' || words[k] === 'env' || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[k]))
  )
    k++;
  const word = (words[k] ?? '').replace(/^[('"]+/, '');
  const slash = word.lastIndexOf('/');
  return slash >= 0 ? word.slice(slash + 1) : word;
}

/** The exit code Pi's bash tool appended to a failed command's output ("Command exited with code N"), or null. */
export function reportedExitCode(output: string): number | null {
  const tail = output.length > 400 ? output.slice(-400) : output;
  const m = /Command exited with code (\d{1,3})\s*$/.exec(tail);
  return m ? Number(m[1]) : null;
}

/** The output without Pi's exit-status line and its "(no output)" placeholder. */
export function outputWithoutStatus(output: string): string {
  let t = output.replace(/\s*Command exited with code \d{1,3}\s*$/, '');
  t = t.replace(/^\s*\(no output\)\s*$/, '');
  return t.trim();
}

/**
 * The answer a command's non-zero exit gives when it is not a failure ("exit
 * 1: nothing matched", "exit 1: the files differ"), or null when the exit is
 * a failure.
 */
export function exitAnswer(command: string, exitCode: number | null | undefined): string | null {
  if (exitCode !== 1) return null;
  return EXIT_ONE_MEANS[statusProgram(command)] ?? null;
}
