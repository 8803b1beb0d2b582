// The venue refusing the credentials (AuthError: -2015, -1022, -1002) is not a passing trouble:
// nothing signed works until someone fixes the key, its secret, its IP whitelist or its
// permissions. At start-up it stops the start; while running it halts trading (the operator's
// kill switch, lifted by SIGUSR2 or the kill-switch file once fixed) with an alert, once.
import { AuthError } from '../core/errors.js';
import type { EngineParts } from './parts.js';

const FIX = 'check SLUICE_API_KEY and SLUICE_API_SECRET, and the key\'s IP whitelist and trading permissions on the venue';

/** The refusal as start-up reports it: what the venue said and what to check. */
export function refusedAtStart(err: AuthError): AuthError {
  return new AuthError(err.venue, `the venue refused the credentials (${err.detail}): ${FIX}`, { cause: err });
}

/** While running: halts new orders (cancels still pass) and says so once per halt. */
export function haltOnRefusal(parts: Pick<EngineParts, 'risk' | 'log' | 'alert'>, err: AuthError): void {
  const { risk, log, alert } = parts;
  if (risk.killSwitch() === 'halted') {
    log.error({ err: err.message }, 'the venue still refuses the credentials; trading stays halted');
    return;
  }
  risk.setKillSwitch('halted');
  const message = `trading halted: the venue refused the credentials (${err.message}); ${FIX}, then lift the halt (SIGUSR2 or the kill-switch file)`;
  log.error({ err: err.message, killSwitch: 'halted' }, message);
  alert?.('halt', message, { killSwitch: 'halted', by: 'credentials refused', endpoint: err.venue.endpoint });
}
