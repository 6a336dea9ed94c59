// The rank process's entry (dist/worker.cjs): where the core named the rank's GPU, its CUDA context
// begins here, before the rank's own bundle (dist/worker-main.cjs, main.ts) is read: Node parses
// and compiles that bundle while the context is made on a thread of the addon's, instead of before.
// Kept to the addon and early-device.ts, so that little comes before the context.
import { beginEarlyDevice } from './early-device.js';

beginEarlyDevice();
// Beside this bundle, loaded as it is (scripts/bundle.mjs keeps it out of this one).
// eslint-disable-next-line @typescript-eslint/no-require-imports
require('./worker-main.cjs');
