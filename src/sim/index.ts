// The simulated exchange: the contract made executable. See README.md in this folder.
export { PREHISTORY_MS, SimExchange, SimFault, USER, type Arrival, type LoggedOrder, type RecordedIncident, type RecordedMarketEvent, type SimOptions, type Trouble } from './exchange.js';
export type { IncidentCounts } from './troubles.js';
export { INCIDENT_KINDS, type IncidentKind, type RecordedAnswer } from './types.js';
export { SimTransport } from './transport.js';
export { startSimServer, type SimServer, type SimServerOptions } from './server.js';
export { DEFAULT_CONTRACTS, DEFAULT_SYMBOLS, hasPrice, type ContractSpec, type SymbolSpec, type MarketShape } from './instruments.js';
export type { FaultOptions, LatencySpec } from './faults.js';
export { eventCount, LEVEL_CELLS, TRADE_CELLS } from './types.js';
export { DEFAULT_PROFILE, LENIENT_PROFILE, STRICT_PROFILE, resolveProfile, type ProfileOption, type VenueProfile } from './profile.js';
export { JsonNumber } from './json.js';
export type { PositionModel } from './futures.js';
