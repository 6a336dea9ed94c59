// The GPUs' topology as a process of the lab reads it (the addon's topology(): CUDA's list of GPUs,
// NVML's links between them, the libraries' versions), checked before the core believes it: every
// string and count bounded. It comes from rank 0 of a run forked on nccl, once it has joined
// (protocol.ts's `topology`), or from the core's topology probe (src/main/core/machine/topology-probe.ts).
import { z } from 'zod';

const text = z.string().max(4096);
const count = z
  .number()
  .int()
  .min(0)
  .max(1 << 20);

export const topologySchema = z.object({
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

/** The checked topology: the addon's `Topology` (src/addon/native-api.ts), which the probe and rank 0 send as it is. */
export type CheckedTopology = z.infer<typeof topologySchema>;
