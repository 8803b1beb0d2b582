// Public surface of the ops module: metrics, the local HTTP endpoint and webhook alerts.
export type { OpsSource, OpsHealth, OpsStatus, OpsPosition, OpsOpenOrder, OpsLog } from './types.js';
export { createMetrics, type Metrics, type MetricsOptions } from './metrics.js';
export { startOpsServer, healthOf, STARTING_REASON, type OpsServer, type OpsServerOptions, type HealthVerdict } from './server.js';
export { Alerts, postJson, type AlertKind, type AlertBody, type AlertPost, type AlertsOptions } from './alerts.js';
