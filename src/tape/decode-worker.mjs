// Run from the sources (tests, benches), a worker thread does not inherit the main thread's
// module hooks: register tsx here, then load the TypeScript worker. A build starts its compiled
// decode-worker.js instead (decode-thread.ts).
import { register } from 'tsx/esm/api';

register();
await import('./decode-worker.ts');
