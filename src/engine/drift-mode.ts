// A drift verdict turned into the kill switch: drift's mode goes on beside the operator's (the
// stricter holds, see RiskGate) with an alert, and its end takes it away again with another, so
// the operator who heard of the drift hears that it is over.
import type { Log } from '../core/log.js';
import { driftAlert, type DriftLine } from '../reconciler/drift.js';
import type { RiskGate } from '../risk/index.js';

export interface DriftModeParts {
  risk: RiskGate;
  log: Log;
  /** reconcile.drift.action. */
  action: 'reduce_only' | 'halted';
  alert?: (kind: 'drift' | 'drift_resolved', message: string, details: Record<string, unknown>) => void;
}

export function applyDrift({ risk, log, action, alert }: DriftModeParts, verdict: 'act' | 'clear', lines: readonly DriftLine[]): void {
  const before = risk.killSwitch();
  // 'clear' comes with every judged read that agrees; only the end of a drift acted on is news.
  const lifted = risk.driftMode();
  risk.setDriftMode(verdict === 'act' ? action : undefined);
  const mode = risk.killSwitch();
  if (verdict === 'act') {
    const message = driftAlert(lines, mode);
    log.error({ alert: 'drift', killSwitch: mode, drift: lines }, message);
    alert?.('drift', message, { drift: lines, killSwitch: mode });
  } else if (lifted !== undefined) {
    if (mode !== before) log.warn({ killSwitch: mode }, 'position drift resolved; kill switch restored');
    alert?.('drift_resolved', `position drift resolved: the venue's holdings agree with our fills again; drift's ${lifted} is lifted and trading is ${mode}`, { lifted, killSwitch: mode });
  }
}
