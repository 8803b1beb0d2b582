// Appends tape lines to a file. Plain tapes are written synchronously, one line per write, so
// a crash loses at most the line in progress. Gzip tapes go through a stream: a gzip member is
// only complete after close(), the price of a much smaller tape.
import { closeSync, createWriteStream, mkdirSync, openSync, writeSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { createGzip, type Gzip } from 'node:zlib';
import { encodeLine, redact, TAPE_VERSION, type TapeCall, type TapeHeader } from './format.js';

export interface TapeWriterOptions {
  gzip?: boolean;
  /** Epoch ms written in the header. */
  startedAt: number;
  meta?: Record<string, unknown>;
  /** Replaced by [redacted] in every line, the header included. */
  secrets?: readonly string[];
}

export class TapeWriter {
  private fd: number | undefined;
  private gz: Gzip | undefined;
  private file: WriteStream | undefined;
  private seq = 0;
  private closed = false;
  private error: Error | undefined;

  /** Creates the parent directory; refuses to overwrite an existing file (a tape is evidence). */
  constructor(
    readonly path: string,
    private readonly opts: TapeWriterOptions,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    // Opened synchronously in both modes so a bad path fails here, not later on a stream.
    const fd = openSync(path, 'wx');
    if (opts.gzip) {
      this.file = createWriteStream('', { fd });
      this.gz = createGzip();
      this.gz.pipe(this.file);
      const onError = (e: Error) => {
        this.error ??= e;
      };
      this.gz.on('error', onError);
      this.file.on('error', onError);
    } else {
      this.fd = fd;
    }
    const header: TapeHeader = { tape: TAPE_VERSION, kind: 'header', startedAt: opts.startedAt, meta: opts.meta ?? {} };
    this.writeLine(header);
  }

  /** The first write error. Recording stops there; the calls being recorded are not affected. */
  get failed(): Error | undefined {
    return this.error;
  }

  /** The next sequence number: taken when a request leaves, shared by every market. */
  nextSeq(): number {
    return this.seq++;
  }

  write(call: TapeCall): void {
    if (this.closed) throw new Error(`tape ${this.path} is closed`);
    this.writeLine(call);
  }

  private writeLine(line: TapeHeader | TapeCall): void {
    if (this.error) return;
    const text = `${encodeLine(redact(line, this.opts.secrets ?? []))}\n`;
    try {
      if (this.gz) this.gz.write(text);
      else writeSync(this.fd!, text);
    } catch (e) {
      this.error = e as Error;
    }
  }

  /** Finishes the file (the gzip member); rejects with the first write error, if any. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.gz && this.file) {
      this.gz.end();
      // Errors were already kept in `failed`; wait only for the bytes to reach the file.
      await finished(this.file).catch(() => undefined);
    }
    if (this.error) throw this.error;
  }
}
