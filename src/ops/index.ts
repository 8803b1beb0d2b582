// Public surface of the ops module: metrics, the local HTTP endpoint and its dashboard, webhook alerts.
export type { OpsSource, OpsHealth, OpsStatus, OpsPosition, OpsOpenOrder, OpsFill, OpsAlert, OpsPoint, OpsHistory, OpsLog } from './types.js';
export { createMetrics, type Metrics, type MetricsOptions } from './metrics.js';
export { startOpsServer, healthOf, STARTING_REASON, type OpsServer, type OpsServerOptions, type HealthVerdict } from './server.js';
export { Alerts, CLOSE_BOUND_MS, closedLine, HELD_LISTED, postJson, RECENT_ALERTS, SUBJECT_FIELDS, type AlertKind, type AlertBody, type AlertPost, type AlertsClosed, type AlertsOptions } from './alerts.js';
export { OpsRecorder, DEFAULT_MAX_POINTS, type OpsSample } from './history.js';
