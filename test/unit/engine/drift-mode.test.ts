// applyDrift: a drift verdict turned into the kill switch, on the real RiskGate; and on the
// engine, a drift the simulator's balance makes behind our back, acted on and resolved.
import { afterEach, describe, expect, it } from 'vitest';
import { d } from '../../../src/core/decimal.js';
import { applyDrift } from '../../../src/engine/drift-mode.js';
import type { DriftLine } from '../../../src/reconciler/drift.js';
import { RiskGate } from '../../../src/risk/index.js';
import { USER } from '../../../src/sim/index.js';
import { defineStrategy, z } from '../../../src/strategy/api.js';
import { drive, engineApp, loaded, MemoryLog, RIG_LIMITS, runUntil, SIM_START, type EngineApp } from '../../fixtures/engine-parts.js';

const line: DriftLine = { market: 'spot', name: 'BTC', symbols: ['BTCUSDT'], expected: d('1'), venue: d('0.999'), difference: d('-0.001'), tolerance: d('0'), beyond: true, baseline: d('0') };

function rig(operator: 'off' | 'reduce_only' | 'halted' = 'off') {
  const risk = new RiskGate({ ...RIG_LIMITS, killSwitch: { mode: operator } });
  const log = new MemoryLog();
  const alerts: { kind: string; message: string; details: Record<string, unknown> }[] = [];
  const parts = { risk, log, action: 'reduce_only' as const, alert: (kind: 'drift' | 'drift_resolved', message: string, details: Record<string, unknown>) => void alerts.push({ kind, message, details }) };
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
    expect(alerts.slice(1)).toEqual([
      { kind: 'drift_resolved', message: 'position drift resolved: the venue\'s holdings agree with our fills again; drift\'s reduce_only is lifted and trading is off', details: { lifted: 'reduce_only', killSwitch: 'off' } },
    ]);
  });

  it('drift_resolved is sent once, for a drift that was acted on: a read that agrees with none before says nothing', () => {
    const { alerts, parts } = rig();
    applyDrift(parts, 'clear', []);
    applyDrift(parts, 'act', [line]);
    applyDrift(parts, 'clear', []);
    applyDrift(parts, 'clear', []);
    expect(alerts.map((a) => a.kind)).toEqual(['drift', 'drift_resolved']);
  });

  it('the stricter of the operator\'s and drift\'s modes holds, and clearing drift leaves the operator\'s', () => {
    const { risk, log, alerts, parts } = rig('halted');
    applyDrift(parts, 'act', [line]);
    expect(risk.killSwitch()).toBe('halted');
    applyDrift(parts, 'clear', []);
    expect(risk.killSwitch()).toBe('halted');
    expect(log.withMsg('position drift resolved; kill switch restored')).toEqual([]);
    // The drift is over though the operator's halt holds: that is news too.
    expect(alerts.map((a) => [a.kind, a.details.killSwitch])).toEqual([['drift', 'halted'], ['drift_resolved', 'halted']]);
  });
});

describe('drift on the engine', () => {
  let running: EngineApp | undefined;
  afterEach(async () => {
    if (running) await drive(running.clock, running.app.stop());
    running = undefined;
  });

  it('a balance moved behind our back beyond tolerance is alerted as drift, and as drift_resolved once it is moved back', async () => {
    const idle = defineStrategy({ apiVersion: 1, name: 'idle', params: z.object({}), create: () => ({}) });
    const alerts: { kind: string; details: Record<string, unknown> }[] = [];
    const yaml = 'mode: paper\nengine: { reconcileEveryMs: 500, summaryEveryMs: 60000 }\nreconcile: { drift: { graceMs: 0 } }\n';
    running = await engineApp(yaml, [loaded('idle', idle)], { alert: (kind, _message, details) => void alerts.push({ kind, details }) });
    const { app, clock, sim } = running;
    void app.start();
    await runUntil(clock, SIM_START + 2_000);
    expect(alerts).toEqual([]);

    sim.ledger.credit(USER, 'BTC', d('1'));
    await runUntil(clock, SIM_START + 4_000);
    expect(alerts.map((a) => [a.kind, a.details.killSwitch])).toEqual([['drift', 'reduce_only']]);
    expect(app.riskGate.killSwitch()).toBe('reduce_only');

    sim.ledger.credit(USER, 'BTC', d('-1'));
    await runUntil(clock, SIM_START + 8_000);
    expect(alerts.map((a) => [a.kind, a.details.killSwitch])).toEqual([['drift', 'reduce_only'], ['drift_resolved', 'off']]);
    expect(app.riskGate.killSwitch()).toBe('off');
  });
});
