// Appends tape lines to a file. Plain tapes are written synchronously, one line per write, so
// a crash loses at most the line in progress. Gzip tapes go through a stream: a gzip member is
// only complete after close(), so the stream is sync-flushed every FLUSH_EVERY_MS that saw a
// line, and a crash (kill -9) loses about the last second, not everything since the start.
import { closeSync, createWriteStream, mkdirSync, openSync, writeSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';
import { finished } from 'node:stream/promises';
import { constants, createGzip, type Gzip } from 'node:zlib';
import { encodeLine, redact, TAPE_VERSION, type TapeCall, type TapeHeader } from './format.js';

export interface TapeWriterOptions {
  gzip?: boolean;
  /** Epoch ms written in the header. */
  startedAt: number;
  meta?: Record<string, unknown>;
  /** Replaced by [redacted] in every line, the header included. */
  secrets?: readonly string[];
  /** Told once, at the first write error: recording stops there while trading goes on. */
  onError?: (err: Error) => void;
}

/** How often a gzip tape that saw lines is flushed to its file (wall time: it bounds what a crash loses). */
export const FLUSH_EVERY_MS = 1000;

export class TapeWriter {
  private fd: number | undefined;
  private gz: Gzip | undefined;
  private file: WriteStream | undefined;
  private seq = 0;
  private closed = false;
  private error: Error | undefined;
  private unflushed = false;
  private readonly flusher: NodeJS.Timeout | undefined;

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
      this.gz.on('error', (e) => this.fail(e));
      this.file.on('error', (e) => this.fail(e));
      this.flusher = setInterval(() => void this.flush(), FLUSH_EVERY_MS).unref();
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

  /** Pushes a gzip tape's lines so far through to its file, readable as they are if the process dies. */
  flush(): Promise<void> {
    if (!this.gz || !this.unflushed || this.closed || this.error) return Promise.resolve();
    this.unflushed = false;
    return new Promise((resolve) => this.gz!.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  }

  private writeLine(line: TapeHeader | TapeCall): void {
    if (this.error) return;
    const text = `${encodeLine(redact(line, this.opts.secrets ?? []))}\n`;
    try {
      if (this.gz) {
        this.gz.write(text);
        this.unflushed = true;
      } else writeSync(this.fd!, text);
    } catch (e) {
      this.fail(e as Error);
    }
  }

  private fail(err: Error): void {
    if (this.error) return;
    this.error = err;
    this.opts.onError?.(err);
  }

  /** Finishes the file (the gzip member); rejects with the first write error, if any. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.flusher);
    if (this.fd !== undefined) closeSync(this.fd);
    if (this.gz && this.file) {
      this.gz.end();
      // Errors were already kept in `failed`; wait only for the bytes to reach the file.
      await finished(this.file).catch(() => undefined);
    }
    if (this.error) throw this.error;
  }
}
