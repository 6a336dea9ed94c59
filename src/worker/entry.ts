// The rank process's entry (dist/worker.cjs): where the core named the rank's GPU, its CUDA context
// begins here, before the rank's own bundle (dist/worker-main.cjs, main.ts) is read: Node parses
// and compiles that bundle while the context is made on a thread of the addon's, instead of before.
// Kept to the addon, early-device.ts, the topology probe and the code cache's loader, so that little
// comes before the context.
import { join } from 'node:path';
import { requireWithCodeCache } from '../../bin/code-cache.cjs';
import { beginEarlyDevice } from './early-device.js';
import { runTopologyProbe } from './topology-probe.js';

if (process.env.CLAB_PROBE === 'topology') runTopologyProbe();
else {
  beginEarlyDevice();
  // Beside this bundle in dist/, loaded as it is (a path made at run time, which neither the bundler
  // nor the layer rules follow), with V8's code cache of its last start (bin/code-cache.cjs).
  requireWithCodeCache(join(__dirname, 'worker-main.cjs'), module);
}
