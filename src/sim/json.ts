// Request bodies may carry order ids as JSON numbers beyond 2^53 (batchCancel documents them
// as numbers). JSON.parse would silently round them, so integer literals of 16+ digits are
// read as their exact digit text before parsing.

/** JSON.parse, except that integer literals of 16 or more digits come back as digit strings. */
export function parseBody(text: string): unknown {
  if (!/\d{16,}/.test(text)) return JSON.parse(text);
  let out = '';
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const start = i;
      i++;
      while (i < text.length && /[0-9.eE+-]/.test(text[i]!)) i++;
      const literal = text.slice(start, i);
      if (/^-?\d{16,}$/.test(literal)) {
        out += `${text.slice(copied, start)}"${literal}"`;
        copied = i;
      }
      continue;
    }
    i++;
  }
  return JSON.parse(out + text.slice(copied));
}
