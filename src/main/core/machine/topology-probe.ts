// The GPUs' topology for a run's record, read by a process of its own (the rank's entry with
// CLAB_PROBE=topology, src/worker/topology-probe.ts) under the ranks' environment, so that it sees
// the GPUs they see and this process need not load CUDA for it: CUDA's start here, beside the ranks' own,
// slowed theirs, and its teardown at this process's exit took 50–90 ms after the answer on one
// H200. The probe's message is checked before it is believed; a probe that fails, says nothing or
// takes longer than PROBE_TIMEOUT_MS gives null (the record then names no GPU), and is killed.
import { fork } from 'node:child_process';
import { z } from 'zod';
import type { Topology } from '../../../addon/native-api.js';

export const PROBE_TIMEOUT_MS = 30_000;

const text = z.string().max(4096);
const count = z
  .number()
  .int()
  .min(0)
  .max(1 << 20);
const topologySchema = z.object({
  gpus: z
    .array(
      z.object({
        index: count,
        name: text,
        memoryBytes: z.number().min(0),
        busId: text,
        computeCapability: count.optional(),
        pcieGen: count.optional(),
        pcieWidth: count.optional(),
        nvlinkVersion: count.optional(),
        nvlinkGbpsPerLink: z.number().min(0).optional(),
      }),
    )
    .max(4096),
  links: z
    .array(
      z.object({
        a: count,
        b: count,
        nvlinks: count,
        via: z.enum(['', 'direct', 'NVSwitch']),
        pcie: text,
        peakGBps: z.number().min(0).nullable(),
        p2p: z.object({ access: z.boolean(), performanceRank: z.number().int(), nativeAtomics: z.boolean() }).nullable(),
      }),
    )
    .max(1 << 16),
  versions: z.record(z.string(), text),
  problems: z.array(text).max(1024),
});
const messageSchema = z.union([
  z.object({ type: z.literal('topology'), topology: topologySchema }),
  z.object({ type: z.literal('topology-error'), message: text }),
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
