import { describe, expect, it } from 'vitest';
import { Inbox, MAX_WAITING_EVENTS } from '../../../src/engine/inbox.js';
import { MemoryLog, settle } from '../../fixtures/engine-parts.js';

/** A job that waits until the test lets it end. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, run: () => opened };
}

describe('Inbox', () => {
  it('runs one job at a time, in order; a newer market-data event takes the place of a waiting one of its feed', async () => {
    const ran: string[] = [];
    const inbox = new Inbox('t', new MemoryLog(), () => undefined);
    void inbox.open();
    const first = gate();
    inbox.post(async () => {
      ran.push('order 1');
      await first.run();
    });
    inbox.post(async () => void ran.push('ticker @1'), 'spot:BTCUSDT:ticker:');
    inbox.post(async () => void ran.push('fill 1'));
    inbox.post(async () => void ran.push('ticker @2'), 'spot:BTCUSDT:ticker:');
    await settle();
    expect(ran).toEqual(['order 1']);
    first.open();
    await inbox.idle();
    expect(ran).toEqual(['order 1', 'ticker @2', 'fill 1']);
  });

  it(`past ${MAX_WAITING_EVENTS} waiting events, drops them and says so (the engine disables the strategy); a stop's job is kept`, async () => {
    const ran: string[] = [];
    const overflows: number[] = [];
    const inbox = new Inbox('t', new MemoryLog(), (waiting) => overflows.push(waiting));
    void inbox.open();
    const stuck = gate();
    inbox.post(stuck.run);
    const stopped = inbox.run(async () => void ran.push('stop'));
    for (let i = 0; i < MAX_WAITING_EVENTS; i++) inbox.post(async () => void ran.push(`event ${i}`));
    expect(overflows).toEqual([MAX_WAITING_EVENTS]);
    stuck.open();
    await stopped;
    await inbox.idle();
    expect(ran).toEqual(['stop']);
  });

  it('holds what comes before its strategy started; at the start, the market data polled so far, then what waited, in order', async () => {
    const ran: string[] = [];
    const overflows: Array<[number, boolean]> = [];
    const inbox = new Inbox('t', new MemoryLog(), (waiting, started) => overflows.push([waiting, started]));
    inbox.post(async () => void ran.push('order filled'));
    inbox.post(async () => void ran.push('ticker @1'), 'spot:BTCUSDT:ticker:');
    inbox.post(async () => void ran.push('fill'));
    await settle();
    await inbox.idle();
    expect(ran).toEqual([]);
    await inbox.open([
      { key: 'spot:BTCUSDT:ticker:', run: async () => void ran.push('ticker @2') },
      { key: 'spot:BTCUSDT:depth:', run: async () => void ran.push('depth @2') },
    ]);
    expect(ran).toEqual(['ticker @2', 'depth @2', 'order filled', 'fill']);
    inbox.post(async () => void ran.push('order canceled'));
    await inbox.idle();
    expect(ran.at(-1)).toBe('order canceled');
    expect(overflows).toEqual([]);
  });

  it(`past ${MAX_WAITING_EVENTS} events before the start, drops them and says the strategy had not started`, () => {
    const overflows: Array<[number, boolean]> = [];
    const inbox = new Inbox('t', new MemoryLog(), (waiting, started) => overflows.push([waiting, started]));
    for (let i = 0; i <= MAX_WAITING_EVENTS; i++) inbox.post(async () => undefined);
    expect(overflows).toEqual([[MAX_WAITING_EVENTS, false]]);
    expect(inbox.discard()).toBe(0);
  });
});
