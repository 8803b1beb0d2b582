// `sluice sim`: the simulated exchange as an HTTP server on 127.0.0.1.
import { PREHISTORY_MS, startSimServer, type SimServerOptions } from '../sim/server.js';

export interface SimCommandOptions {
  port?: number;
  seed?: number;
  apiKey?: string;
  apiSecret?: string;
  host?: string;
  /** Venue profile: 'strict' (the default) or 'lenient'. */
  profile?: 'strict' | 'lenient';
}

/**
 * `sluice sim`: serves the simulator until SIGINT or SIGTERM, then closes cleanly. Prints the
 * URL and the credentials it accepts (this command alone prints the secret: it is the
 * simulator's, made to be pasted into a config).
 */
export async function runSimCommand(
  opts: SimCommandOptions,
  io: { out: (line: string) => void; signals?: NodeJS.EventEmitter } = { out: (l) => process.stdout.write(`${l}\n`) },
): Promise<void> {
  // Hours of market before now, as paper mode and a live venue have: a klines warm-up is met at
  // once (a fresh `sluice sim` had none, and a strategy waited minutes of candles to start).
  const server = await startSimServer({ port: opts.port ?? 0, seed: opts.seed ?? 1, apiKey: opts.apiKey, apiSecret: opts.apiSecret, host: opts.host, profile: opts.profile, prehistoryMs: PREHISTORY_MS } satisfies SimServerOptions);
  io.out(`sluice sim listening on ${server.url}`);
  io.out(`api key: ${server.apiKey}`);
  io.out(`api secret: ${server.apiSecret}`);
  const signals = io.signals ?? process;
  await new Promise<void>((resolve) => {
    const stop = () => {
      signals.off('SIGINT', stop);
      signals.off('SIGTERM', stop);
      resolve();
    };
    signals.on('SIGINT', stop);
    signals.on('SIGTERM', stop);
  });
  await server.close();
  io.out('sluice sim stopped');
}
