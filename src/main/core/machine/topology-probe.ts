// The GPUs' topology for a run's record where rank 0 did not send its own (protocol.ts's
// `topology`: a run that failed before its rank 0 joined, a rank that could not read it), read by a
// process of its own (the rank's entry with CLAB_PROBE=topology, src/worker/topology-probe.ts) under
// the ranks' environment, so that it sees the GPUs they see and this process need not load CUDA for
// it: CUDA's start here slowed the ranks' own, and its teardown at this process's exit took 50–90 ms
// after the answer on one H200. The probe is forked only at the run's answer or failure (run.ts), as its
// CUDA start beside the ranks' own slowed theirs too. Its message is checked before it is believed; a probe that fails,
// says nothing or takes longer than PROBE_TIMEOUT_MS gives null (the record then names no GPU), and
// is killed.
import { fork } from 'node:child_process';
import { z } from 'zod';
import type { Topology } from '../../../addon/native-api.js';
import { topologySchema } from '../../../shared/run/rank/topology.js';

export const PROBE_TIMEOUT_MS = 30_000;

const messageSchema = z.union([
  z.object({ type: z.literal('topology'), topology: topologySchema }),
  z.object({ type: z.literal('topology-error'), message: z.string().max(4096) }),
]);

/** The topology as the probe forked from `entry` under `env` reads it; null where it cannot. */
export function probeTopology(entry: string, env: NodeJS.ProcessEnv, timeoutMs = PROBE_TIMEOUT_MS): Promise<Topology | null> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof fork>;
    try {
      child = fork(entry, [], { env: { ...env, CLAB_PROBE: 'topology' }, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    } catch {
      resolve(null);
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, timeoutMs);
    const settle = (topology: Topology | null) => {
      clearTimeout(timer);
      resolve(topology);
    };
    child.on('message', (m) => {
      const parsed = messageSchema.safeParse(m);
      settle(parsed.success && parsed.data.type === 'topology' ? (parsed.data.topology as Topology) : null);
    });
    child.on('error', () => settle(null));
    child.on('close', () => settle(null)); // after its messages, where it sent one: the first settle stands
  });
}
