/** `1 token`, `2 tokens`, `1 entry`, `3 entries`: a count with its noun, singular for exactly one. */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? singular : plural}`;
}
