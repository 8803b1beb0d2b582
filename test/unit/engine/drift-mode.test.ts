// applyDrift: a drift verdict turned into the kill switch, on the real RiskGate.
import { describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { applyDrift } from '../../../src/engine/drift-mode.js';
import type { DriftLine } from '../../../src/reconciler/drift.js';
import { RiskGate } from '../../../src/risk/index.js';
import { MemoryLog, RIG_LIMITS } from '../../fixtures/engine-parts.js';

const line: DriftLine = { market: 'spot', name: 'BTC', symbols: ['BTCUSDT'], expected: d('1'), venue: d('0.999'), difference: d('-0.001'), tolerance: d('0'), beyond: true, baseline: d('0') };

function rig(operator: 'off' | 'reduce_only' | 'halted' = 'off') {
  const risk = new RiskGate({ ...RIG_LIMITS, killSwitch: { mode: operator } });
  const log = new MemoryLog();
  const alerts: { kind: string; message: string }[] = [];
  const parts = { risk, log, action: 'reduce_only' as const, alert: (kind: 'drift', message: string) => void alerts.push({ kind, message }) };
  return { risk, log, alerts, parts };
}

describe('applyDrift', () => {
  it('a drift switches trading to its action with an error line and an alert; its end restores the operator\'s mode', () => {
    const { risk, log, alerts, parts } = rig();
    applyDrift(parts, 'act', [line]);
    expect(risk.killSwitch()).toBe('reduce_only');
    expect(alerts.map((a) => a.kind)).toEqual(['drift']);
    expect(alerts[0]!.message).toContain('BTC');
    expect(log.lines.filter((l) => l.level === 'error').map((l) => l.fields.killSwitch)).toEqual(['reduce_only']);
    applyDrift(parts, 'clear', []);
    expect(risk.killSwitch()).toBe('off');
    expect(log.withMsg('position drift resolved; kill switch restored').map((l) => l.fields.killSwitch)).toEqual(['off']);
  });

  it('the stricter of the operator\'s and drift\'s modes holds, and clearing drift leaves the operator\'s', () => {
    const { risk, log, parts } = rig('halted');
    applyDrift(parts, 'act', [line]);
    expect(risk.killSwitch()).toBe('halted');
    applyDrift(parts, 'clear', []);
    expect(risk.killSwitch()).toBe('halted');
    expect(log.withMsg('position drift resolved; kill switch restored')).toEqual([]);
  });
});
