import { describe, expect, it } from 'vitest';
import { Progress } from '../../../src/report/index.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, writes, write: (chunk: string) => writes.push(chunk) > 0 };
}

describe('Progress', () => {
  it('writes nothing to a stream that is not a terminal', () => {
    const stream = fakeStream(false);
    let now = 0;
    const progress = new Progress(stream, { total: 10, now: () => now });
    for (let i = 0; i < 10; i++) {
      now += 1000;
      progress.tick();
    }
    progress.finish();
    expect(stream.writes).toEqual([]);
  });

  it('draws done/total, percent and events per second on a terminal, throttled, and ends the line', () => {
    const stream = fakeStream(true);
    let now = 10_000;
    const progress = new Progress(stream, { total: 200, now: () => now, label: 'replay', barWidth: 10, minIntervalMs: 100 });
    progress.update(50); // the first update draws; no time has passed, so no rate yet
    now += 50;
    progress.update(60); // within the throttle interval: not drawn
    now += 950;
    progress.update(100); // 100 events in 1 s
    now += 1000;
    progress.finish();
    expect(stream.writes).toEqual([
      '\rreplay [##--------] 50/200 25.0% - ev/s\x1b[K',
      '\rreplay [#####-----] 100/200 50.0% 100 ev/s\x1b[K',
      '\rreplay [#####-----] 100/200 50.0% 50.0 ev/s\x1b[K',
      '\n',
    ]);
    progress.tick();
    progress.finish();
    expect(stream.writes).toHaveLength(4);
  });

  it('always draws the last event, even inside the throttle interval', () => {
    const stream = fakeStream(true);
    const progress = new Progress(stream, { total: 3, now: () => 0, barWidth: 3 });
    progress.tick();
    progress.tick();
    progress.tick();
    expect(stream.writes).toEqual(['\r[#--] 1/3 33.3% - ev/s\x1b[K', '\r[###] 3/3 100.0% - ev/s\x1b[K']);
  });

  it('without a known total shows the count and rate only', () => {
    const stream = fakeStream(true);
    let now = 0;
    const progress = new Progress(stream, { total: 0, now: () => now, barWidth: 4 });
    now = 2000;
    progress.update(50_000);
    expect(stream.writes).toEqual(['\r[----] 50000 25.0k ev/s\x1b[K']);
  });
});
