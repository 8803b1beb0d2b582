// The instruments a tape's venue listed: the first spot symbols and futures contracts answers
// it recorded, decoded as the live client decodes them. A backtest lists them, so a tape of any
// venue and symbol can be tested with that venue's own precisions, minimums and multipliers.
// With them, the first spot account answer: what the account held as the recording started
// (a backtest can start from it: sim.recordedBalances).
import { join } from 'node:path';
import type { Balance } from '../core/types.js';
import { decodeResponse, type ContractInfo, type Listing, type SymbolInfo } from '../exchange/codec.js';
import { parseJsonLossless } from '../exchange/json.js';
import type { Tape, TapeCall } from './format.js';
import { perFileVersion, tapeDigest } from './digest.js';
import { openTape } from './reader.js';
import { readSidecar, writeSidecar } from './sidecar.js';

export interface RecordedListings {
  /** Absent when the tape recorded no readable answer of that market's listing. */
  symbols?: Listing<SymbolInfo>;
  contracts?: Listing<ContractInfo>;
  /** The first readable spot account answer's balances; absent when the tape recorded none. */
  balances?: Listing<Balance>;
}

/** A daemon lists instruments as it starts: a listing later than this into the tape is not looked for (the file is not read to its end). */
export const LISTING_WITHIN_MS = 10 * 60_000;

/** The first readable listings of a tape in memory or in a file; kept beside the tape's event cache, when given, for the next run. */
export async function recordedListings(from: { tape?: Tape; tapePath?: string; eventCacheDir?: string }): Promise<RecordedListings> {
  if (from.tape) return firstListings(from.tape.header.startedAt, from.tape.calls);
  if (!from.tapePath) return {};
  if (from.eventCacheDir === undefined) return listingsOfFile(from.tapePath);
  const sidecar = join(from.eventCacheDir, `${await tapeDigest(from.tapePath)}.listings`);
  const kept = readSidecar(sidecar, SIDECAR_VERSION);
  return kept !== undefined && typeof kept === 'object' && kept !== null ? (kept as RecordedListings) : writeSidecar(sidecar, SIDECAR_VERSION, await listingsOfFile(from.tapePath));
}

const SIDECAR_VERSION = 2;

/** A sweep's runs share a tape: its head is read once per file version. */
const listingsOfFile = perFileVersion(16, fromFile);

async function fromFile(path: string): Promise<RecordedListings> {
  // Only the lines that may be a listing, or that may lie past the window (which ends the read),
  // are parsed: a tape without listings is otherwise parsed for its first 10 minutes on every
  // run (all of a dense one: about 0.25 s of CPU, as much as the whole backtest from its cache).
  let endsAt = Infinity;
  const select = (text: string) => text.includes('spot.symbols') || text.includes('futures.contracts') || text.includes('spot.account') || !(recordedAt(text) <= endsAt);
  const { header, calls } = await openTape(path, { select });
  endsAt = header.startedAt + LISTING_WITHIN_MS;
  try {
    return await firstListings(header.startedAt, calls);
  } finally {
    await calls.return(undefined);
  }
}

/** A call line's time from its head, as the writer puts it (NaN when not found there: the line is parsed). */
function recordedAt(text: string): number {
  const m = /"at"\s*:\s*(\d+)/.exec(text.slice(0, 256));
  return m ? Number(m[1]) : NaN;
}

async function firstListings(startedAt: number, calls: Iterable<TapeCall> | AsyncIterable<TapeCall>): Promise<RecordedListings> {
  const out: RecordedListings = {};
  for await (const c of calls) {
    if (c.at > startedAt + LISTING_WITHIN_MS || (out.symbols && out.contracts && out.balances)) break;
    if (!('response' in c) || c.response.status < 200 || c.response.status > 299) continue;
    if (c.endpoint === 'spot.symbols' && !out.symbols) out.symbols = decoded('spot.symbols', c.response.body);
    else if (c.endpoint === 'futures.contracts' && !out.contracts) out.contracts = decoded('futures.contracts', c.response.body);
    else if (c.endpoint === 'spot.account' && !out.balances) out.balances = decoded('spot.account', c.response.body);
  }
  return out;
}

/** An answer the client could not read (an error body with a 200, a malformed one) is passed over, as live passes it over. */
function decoded<E extends 'spot.symbols' | 'futures.contracts' | 'spot.account'>(endpoint: E, body: string) {
  try {
    return decodeResponse(endpoint, parseJsonLossless(body));
  } catch {
    return undefined;
  }
}
