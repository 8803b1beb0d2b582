// Run from the sources (tests, benches), a worker thread does not inherit the main thread's
// module hooks: register tsx here, then load the TypeScript worker. A build (bin/sluice.js)
// starts its compiled sweep-worker.js instead (sweep-pool.ts).
import { register } from 'tsx/esm/api';

register();
await import('./sweep-worker.ts');
