// A worker thread does not inherit the main thread's module hooks: register tsx here, then
// load the TypeScript worker (as bin/sluice.js does for the CLI).
import { register } from 'tsx/esm/api';

register();
await import('./sweep-worker.ts');
