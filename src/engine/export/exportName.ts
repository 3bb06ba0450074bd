/**
 * The file name an export is offered under: the session's title made safe as a file name on Windows, macOS and Linux
 * (no path separator, reserved character, control or bidi character; no leading dot; not a reserved device name),
 * at most NAME_MAX_CHARS characters cut between code points, then the branch's leaf when it is not the current one.
 */
const NAME_MAX_CHARS = 60;
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff<>:"/\\|?*#%&{}$!'@`=+^~[\];,]+/gu;
const WINDOWS_DEVICES = /^(con|prn|aux|nul|com\d|lpt\d)$/i;

export function exportFileName(options: { title: string | undefined; leafId?: string; format: 'md' | 'html' }): string {
  let name = (options.title ?? '').normalize('NFKC').replace(UNSAFE, ' ').replace(/\s+/g, '-').replace(/-+/g, '-');
  name = name.replace(/^[-.]+|[-.]+$/g, '');
  const chars = Array.from(name);
  if (chars.length > NAME_MAX_CHARS)
    name = chars
      .slice(0, NAME_MAX_CHARS)
      .join('')
      .replace(/[-.]+$/, '');
  if (!name) name = 'pi-session';
  if (WINDOWS_DEVICES.test(name)) name = `${name}-session`;
  const leaf = options.leafId ? `-${options.leafId.replace(/[^0-9a-zA-Z_-]/g, '').slice(0, 40)}` : '';
  return `${name}${leaf}.${options.format}`;
}
