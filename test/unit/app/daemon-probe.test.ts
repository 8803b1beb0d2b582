// `sluice status` and `sluice doctor` ask a running daemon's ops endpoint what only it knows; an
// answer that does not read is no answer, never a crash. A real HTTP server on 127.0.0.1.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonStatus, daemonStrategies } from '../../../src/app/daemon-probe.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** A stand-in ops endpoint answering `status` and `body`; its port and the requests it heard. */
async function endpoint(status: number, body: string): Promise<{ port: number; heard: { url: string; authorization: string | undefined }[] }> {
  const heard: { url: string; authorization: string | undefined }[] = [];
  server = createServer((req, res) => {
    heard.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(status, { 'content-type': 'application/json' }).end(body);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, heard };
}

const config = (port: number, enabled: boolean | 'auto' = true) => ({ mode: 'live' as const, http: { enabled, host: '127.0.0.1', port, tokenFile: null } });

describe('daemonStatus', () => {
  it("reads the daemon's /status.json, sending the token; its strategies are kept item by item", async () => {
    const strategies = [{ id: 'grid', enabled: true }, { id: 'ma', enabled: false, disabledReason: 'onTick threw: boom' }, null, { id: 7, enabled: true }, { id: 'odd', enabled: 'yes' }, { id: 'lim', enabled: true, lossLimitUntil: '2026-11-29T00:00:00.000Z' }];
    const { port, heard } = await endpoint(200, JSON.stringify({ mode: 'live', strategies }));
    const status = await daemonStatus(config(port), 'tok-123');
    expect(heard).toEqual([{ url: '/status.json', authorization: 'Bearer tok-123' }]);
    expect(daemonStrategies(status)).toEqual([{ id: 'grid', enabled: true }, { id: 'ma', enabled: false, disabledReason: 'onTick threw: boom' }, { id: 'lim', enabled: true }]);
  });

  it('is no answer when the endpoint is off (asking nothing), refuses, answers what does not read, or nothing listens', async () => {
    const off = await endpoint(200, '{"strategies":[]}');
    expect(await daemonStatus(config(off.port, false), undefined)).toBeUndefined();
    // auto: on in paper mode only.
    expect(await daemonStatus(config(off.port, 'auto'), undefined)).toBeUndefined();
    expect(off.heard).toEqual([]);
    await new Promise<void>((r) => server!.close(() => r()));

    const refused = await endpoint(401, '{"error":"token"}');
    expect(await daemonStatus(config(refused.port), undefined)).toBeUndefined();
    await new Promise<void>((r) => server!.close(() => r()));

    const garbled = await endpoint(200, '<html>not json');
    expect(await daemonStatus(config(garbled.port), undefined)).toBeUndefined();
    await new Promise<void>((r) => server!.close(() => r()));

    const scalar = await endpoint(200, '42');
    expect(await daemonStatus(config(scalar.port), undefined)).toBeUndefined();
    await new Promise<void>((r) => server!.close(() => r()));
    server = undefined;
    // The same port, nothing listening on it now.
    expect(await daemonStatus(config(scalar.port), undefined)).toBeUndefined();
    expect(daemonStrategies({ strategies: 'none' })).toBeUndefined();
    expect(daemonStrategies(undefined)).toBeUndefined();
  });
});
