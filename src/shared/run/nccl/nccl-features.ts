// What an NCCL can do, by its version: the features the lab names (doctor lists them per library
// found) and the profiler and tuner plug-in interfaces NCCL looks up. Each `since` was read from
// NVIDIA's sources (github.com/NVIDIA/nccl): src/nccl.h.in, the symbols src/plugin/ dlsyms, and the
// release notes that are the tag's commit message, at the first public tag of each minor release.
// One that could not be confirmed there says so (`confirmed: false`) and is not claimed as present.
import { ncclVersionText } from './comm-settings.js';

/** NCCL's version code: NCCL_VERSION(2, 28, 3) = 22803 (major × 10000 + minor × 100 + patch, from 2.9 on). */
export const ncclVersionCode = (major: number, minor: number, patch: number): number => major * 10000 + minor * 100 + patch;

export interface NcclFeature {
  id: string;
  /** What it is, as a learner reads it. */
  what: string;
  /** The first version code that has it. */
  since: number;
  /** Where `since` was read. */
  source: string;
  /** false: not found in the NVIDIA sources read so far; `since` is what another page says (listed, never lit). */
  confirmed: boolean;
}

export const NCCL_FEATURES: readonly NcclFeature[] = [
  {
    id: 'split-config',
    what: 'ncclCommSplit with an ncclConfig_t (the lab runs compare variants with NCCL settings of their own on it)',
    since: 21800,
    source: 'nccl.h.in at v2.18.1-1 declares ncclCommSplit',
    confirmed: true,
  },
  {
    id: 'buffer-registration',
    what: 'ncclMemAlloc and ncclCommRegister (a scenario’s registerBuffers)',
    since: 21900,
    source: 'nccl.h.in at v2.19.1-1 declares ncclMemAlloc and ncclCommRegister',
    confirmed: true,
  },
  {
    id: 'ras',
    what: 'RAS: a thread that keeps track of every communicator, queried with the ncclras tool',
    since: 22400,
    source: 'release notes of v2.24.3-1: "Add RAS subsystem"',
    confirmed: true,
  },
  {
    id: 'cta-policy',
    what: 'a CTA policy in ncclConfig_t (default or efficiency)',
    since: 22700,
    source: 'nccl.h.in at v2.27.3-1: NCCL_CTA_POLICY_EFFICIENCY, ncclConfig_t.CTAPolicy',
    confirmed: true,
  },
  {
    id: 'window-registration',
    what: 'window registration (ncclCommWindowRegister)',
    since: 22700,
    source: 'nccl.h.in at v2.27.3-1 declares ncclCommWindowRegister',
    confirmed: true,
  },
  {
    id: 'symmetric-kernels',
    what: 'symmetric kernels on windows registered with NCCL_WIN_COLL_SYMMETRIC',
    since: 22700,
    source: 'release notes of v2.27.3-1: "Symmetric memory API and symmetric kernels"',
    confirmed: true,
  },
  {
    id: 'comm-shrink',
    what: 'ncclCommShrink: a communicator without the ranks named',
    since: 22700,
    source: 'nccl.h.in at v2.27.3-1 declares ncclCommShrink',
    confirmed: true,
  },
  {
    id: 'copy-engine-collectives',
    what: 'CTA policy zero: all_gather, all_to_all, gather and scatter by the copy engine, with no SM, on symmetric windows in one NVLink domain',
    since: 22800,
    source: 'nccl.h.in at v2.28.3-1: NCCL_CTA_POLICY_ZERO; its release notes: "CE (Copy Engine) Collectives"',
    confirmed: true,
  },
  {
    id: 'alltoall-gather-scatter',
    what: 'ncclAlltoAll, ncclGather and ncclScatter as calls of their own',
    since: 22800,
    source: 'nccl.h.in at v2.28.3-1 declares ncclAlltoAll, ncclGather, ncclScatter',
    confirmed: true,
  },
  {
    id: 'one-sided',
    what: 'one-sided zero-SM host calls (ncclPutSignal, ncclWaitSignal)',
    since: 22900,
    source: 'nccl.h.in at v2.29.2-1 declares ncclPutSignal and ncclWaitSignal',
    confirmed: true,
  },
  {
    id: 'comm-grow',
    what: 'ncclCommGrow: ranks added to a communicator',
    since: 22900,
    source: 'nccl.h.in at v2.29.2-1 declares ncclCommGrow',
    confirmed: true,
  },
  {
    id: 'comm-revoke',
    what: 'ncclCommRevoke: every operation in flight stopped, for a shrink to follow',
    since: 22900,
    source: 'nccl.h.in at v2.29.2-1 declares ncclCommRevoke',
    confirmed: true,
  },
  {
    id: 'comm-suspend',
    what: 'ncclCommSuspend and ncclCommResume',
    since: 23000,
    source: 'nccl.h.in at v2.30.3-1 declares ncclCommSuspend and ncclCommResume',
    confirmed: true,
  },
  {
    id: 'per-collective-config',
    what: "a config per collective call (ncclCollConfig_t through nccl*Config: CTAs, algorithm selection, CTA policy, a profiler tag, by which the lab's plug-in names each call's step)",
    since: 23102,
    source: 'nccl.h.in at 2.31.2 declares ncclCollConfig_v23100 and ncclAllReduceConfig …; 2.31.0a7 declared none (2.31.1 not read)',
    confirmed: true,
  },
];

export type NcclPluginKind = 'profiler' | 'tuner';

export interface NcclPluginInterface {
  version: number;
  since: number;
  source: string;
}

/** The interfaces NCCL looks up in a plug-in (ncclProfiler_vN, ncclTunerPlugin_vN), by the version that first dlsyms each. */
export const NCCL_PLUGIN_INTERFACES: Record<NcclPluginKind, readonly NcclPluginInterface[]> = {
  profiler: [
    { version: 1, since: 22300, source: 'src/plugin at v2.23.4-1 dlsyms ncclProfiler_v1' },
    { version: 2, since: 22400, source: 'src/plugin at v2.24.3-1 dlsyms ncclProfiler_v2' },
    { version: 3, since: 22600, source: 'src/plugin at v2.26.2-1 dlsyms ncclProfiler_v3' },
    { version: 4, since: 22700, source: 'src/plugin at v2.27.3-1 dlsyms ncclProfiler_v4' },
    { version: 5, since: 22800, source: 'src/plugin at v2.28.3-1 dlsyms ncclProfiler_v5' },
    { version: 6, since: 22900, source: 'src/plugin at v2.29.2-1 dlsyms ncclProfiler_v6' },
    { version: 7, since: 23102, source: 'src/include/plugin/profiler/profiler_v7.h at 2.31.2 (earlier 2.31 builds not read)' },
  ],
  tuner: [
    { version: 1, since: 21900, source: 'src at v2.19.1-1 dlsyms ncclTunerPlugin_v1' },
    { version: 2, since: 22100, source: 'src at v2.21.5-1 dlsyms ncclTunerPlugin_v2 (and no longer v1)' },
    { version: 3, since: 22200, source: 'src at v2.22.3-1 dlsyms ncclTunerPlugin_v3' },
    { version: 4, since: 22400, source: 'src at v2.24.3-1 dlsyms ncclTunerPlugin_v4' },
    { version: 5, since: 22800, source: 'src at v2.28.3-1 dlsyms ncclTunerPlugin_v5' },
    { version: 6, since: 23000, source: 'src at v2.30.3-1 dlsyms ncclTunerPlugin_v6' },
  ],
};

/**
 * What NCCL dropped: 2.21 and later look up no ncclTunerPlugin_v1 (checked at v2.21.5-1 … v2.30.3-1,
 * where every later interface stays).
 */
const DROPPED: Record<NcclPluginKind, readonly { version: number; since: number }[]> = {
  profiler: [],
  tuner: [{ version: 1, since: 22100 }],
};

/** The interfaces the lab's plug-in library exports (native/profiler: ncclProfiler_v5/_v6/_v7, ncclTunerPlugin_v4/_v5/_v6/_v7). */
export const LAB_PLUGIN_INTERFACES: Record<NcclPluginKind, readonly number[]> = { profiler: [5, 6, 7], tuner: [4, 5, 6, 7] };

/** The plug-in interfaces an NCCL of version `code` looks up, oldest first. */
export function pluginInterfacesAt(kind: NcclPluginKind, code: number): number[] {
  const dropped = DROPPED[kind].filter((d) => code >= d.since).map((d) => d.version);
  return NCCL_PLUGIN_INTERFACES[kind].filter((i) => code >= i.since && !dropped.includes(i.version)).map((i) => i.version);
}

/** The interface NCCL of version `code` takes from the lab's plug-in (it looks up its newest first), or null: none of the lab's. */
export function labPluginInterfaceAt(kind: NcclPluginKind, code: number): number | null {
  const shared = pluginInterfacesAt(kind, code).filter((v) => LAB_PLUGIN_INTERFACES[kind].includes(v));
  return shared.length ? shared[shared.length - 1] : null;
}

export interface NcclFeatureAt {
  feature: NcclFeature;
  /** Whether an NCCL of this version has it (never for an unconfirmed one: it is not claimed). */
  lit: boolean;
}

/** Every feature of the table (`features`, the lab's by default) and whether NCCL of version `code` has it. */
export function ncclFeaturesAt(code: number, features: readonly NcclFeature[] = NCCL_FEATURES): NcclFeatureAt[] {
  return features.map((feature) => ({ feature, lit: feature.confirmed && code >= feature.since }));
}

/** A feature as a line names it: its text and the version it came with ("(2.27)", "(2.32, unconfirmed)"). */
export function featureText(f: NcclFeature): string {
  const minor = ncclVersionText(f.since).replace(/\.0$/, '');
  return `${f.what} (${minor}${f.confirmed ? '' : ', unconfirmed'})`;
}
