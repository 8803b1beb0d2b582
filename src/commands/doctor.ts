// `sluice doctor`: one line per check (app/doctor.ts), OK, WARN or FAIL with a fix; exit 1 on any FAIL.
import { ConfigError } from '../core/errors.js';
import { loadConfig } from '../config/index.js';
import { formatCheck, runChecks } from '../app/doctor.js';
import { scrub } from '../app/logger.js';

export async function doctorCommand(configPath: string, out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  let loaded;
  try {
    loaded = await loadConfig(configPath);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    // Missing or unsafe credentials are config problems; name them as the credentials check.
    for (const p of err.problems) {
      const name = p.path.startsWith('credentials') ? 'credentials' : 'config';
      out(formatCheck({ name, verdict: 'FAIL', detail: `${configPath} ${p.path}${p.line ? ` (line ${p.line})` : ''}: ${p.message}`, fix: 'see the message; `sluice validate --config F` lists every problem' }));
    }
    return 1;
  }
  const { config, credentials } = loaded;
  const secrets = credentials ? [credentials.apiKey, credentials.apiSecret] : [];
  const checks = await runChecks(config, credentials, configPath, loaded.httpToken);
  for (const c of checks) out(scrub(formatCheck(c), secrets));
  return checks.some((c) => c.verdict === 'FAIL') ? 1 : 0;
}
