// Reads tapes, plain or gzip (told apart by the gzip magic bytes, not the file name).
// streamTape() holds one line at a time, so a 24-hour tape never sits in memory.
import { createReadStream, openSync, readSync, closeSync, statSync, type ReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { constants, createGunzip } from 'node:zlib';
import { decodeLine, TapeFormatError, type Tape, type TapeCall, type TapeHeader } from './format.js';

export function isGzipFile(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const magic = Buffer.alloc(2);
    return readSync(fd, magic, 0, 2, 0) === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    closeSync(fd);
  }
}

/**
 * Yields the header first, then every call, in file order; only the calls whose line's text
 * `select` takes, when given (a pass that looks for rare lines skips parsing the others).
 */
async function* lines(path: string, source: ReadStream, select?: (text: string) => boolean): AsyncGenerator<TapeHeader | TapeCall> {
  // SYNC_FLUSH at the end reads a gzip member cut short by a crash instead of failing on it.
  const input: Readable = isGzipFile(path) ? source.pipe(createGunzip({ finishFlush: constants.Z_SYNC_FLUSH, chunkSize: 64 * 1024 })) : source;
  input.setEncoding('utf8');
  let rest = '';
  let lineNo = 0;
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      rest += chunk;
      let start = 0;
      let nl: number;
      while ((nl = rest.indexOf('\n', start)) >= 0) {
        const text = rest.slice(start, nl);
        start = nl + 1;
        lineNo++;
        if (text.trim() !== '' && (lineNo === 1 || select === undefined || select(text))) yield decodeLine(text, path, lineNo);
      }
      rest = rest.slice(start);
    }
  } catch (e) {
    if (e instanceof TapeFormatError) throw e;
    // A corrupt gzip stream or an I/O error: say which file and how far reading got.
    throw new TapeFormatError(path, lineNo + 1, `cannot read: ${(e as Error).message}`);
  } finally {
    source.destroy();
    // Closed before the reading ends: a run that stops a tape's decoding leaves no file open.
    if (!source.closed) await new Promise<void>((closed) => source.once('close', () => closed()));
  }
  lineNo++;
  if (rest.trim() === '' || (lineNo > 1 && select !== undefined && !select(rest))) return;
  // A last line with no newline is the one a crash interrupted: skip it if it is cut short.
  let line: TapeHeader | TapeCall | undefined;
  try {
    line = decodeLine(rest, path, lineNo);
  } catch (e) {
    if (lineNo === 1) throw e;
  }
  if (line) yield line;
}

/**
 * The header and an async iterator of the calls, read as they are consumed (those `select`
 * takes, when given); `progress` is the share of the file read so far (0 to 1), for a progress bar.
 */
export async function openTape(path: string, opts: { select?: (text: string) => boolean } = {}): Promise<{ header: TapeHeader; calls: AsyncGenerator<TapeCall>; progress: () => number }> {
  const size = statSync(path).size;
  const source = createReadStream(path);
  const it = lines(path, source, opts.select);
  const first = await it.next();
  if (first.done || first.value.kind !== 'header') {
    await it.return(undefined);
    throw new TapeFormatError(path, 1, 'empty tape: no header');
  }
  return { header: first.value, calls: it as AsyncGenerator<TapeCall>, progress: () => (size === 0 ? 1 : Math.min(1, source.bytesRead / size)) };
}

/** Every call of a tape, streamed. */
export async function* streamTape(path: string): AsyncGenerator<TapeCall> {
  const { calls } = await openTape(path);
  yield* calls;
}

/** The whole tape in memory. */
export async function readTape(path: string): Promise<Tape> {
  const { header, calls } = await openTape(path);
  const all: TapeCall[] = [];
  for await (const c of calls) all.push(c);
  return { header, calls: all };
}
