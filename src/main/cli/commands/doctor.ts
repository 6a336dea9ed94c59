// `clab doctor`: what this machine offers: the backends (and why one is unavailable), the GPUs,
// the link between every pair (NVLinks, PCIe distance, CUDA peer access), the driver, CUDA,
// NCCL and cuBLAS versions, and every NCCL library found with what its version offers.
import { realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { formatComputeCapability } from '../../../shared/ops/gpu-support.js';
import { loadAddon } from '../../../addon/addon.js';
import type { BackendAvailability, Topology } from '../../../addon/native-api.js';
import {
  featureText,
  labPluginInterfaceAt,
  NCCL_FEATURES,
  ncclFeaturesAt,
  pluginInterfacesAt,
  type NcclFeature,
  type NcclPluginKind,
} from '../../../shared/run/nccl/nccl-features.js';
import { findNcclLibraries, machineNcclSearch, type FoundNccl, type NcclOrigin } from '../../core/machine/nccl-finder.js';
import { checkNcclLibraryPath } from '../../core/machine/nccl-library.js';
import { EXIT_FAILED, EXIT_OK, err, out, reportUsageError, type RegisterCommand } from '../common.js';

const VERSION_NAMES: [string, string][] = [
  ['nvidiaDriver', 'NVIDIA driver'],
  ['cudaDriver', 'CUDA driver API'],
  ['cudaRuntime', 'CUDA runtime'],
  ['nccl', 'NCCL'],
  ['cublas', 'cuBLAS'],
];

const availability = (name: string, b: BackendAvailability) =>
  `  ${name.padEnd(5)} ${b.available ? `available${b.devices ? ` (${b.devices} GPU${b.devices === 1 ? '' : 's'})` : ''}` : `unavailable: ${b.reason ?? 'no reason given'}`}`;

/** nvidia-smi topo's cell: NV18 for NVLinks, else the PCIe distance. */
function linkCell(t: Topology, a: number, b: number): string {
  if (a === b) return 'X';
  const l = t.links.find((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a));
  if (!l) return '?';
  return l.nvlinks > 0 ? `NV${l.nvlinks}` : l.pcie || '?';
}

export function doctorReport(backends: { cpu: BackendAvailability; nccl: BackendAvailability }, t: Topology): string[] {
  const lines = [
    `clab doctor on ${hostname()} (node ${process.version})`,
    'backends:',
    availability('cpu', backends.cpu),
    availability('nccl', backends.nccl),
  ];
  // The data kernels run on GPUs through nccl ranks: where those cannot run, they are beside the point.
  if (backends.nccl.available && backends.nccl.dataKernels !== undefined) {
    lines.push(
      backends.nccl.dataKernels
        ? '  data kernels: built in (PTX for compute capability 7.5 and later, compiled by the driver on first use): nccl ranks fill and check large tensors on the GPU'
        : '  data kernels: none (this addon was built without them): nccl ranks fill and check every tensor on the host',
    );
  }
  lines.push(
    `GPUs: ${t.gpus.length || `none visible${backends.cpu.available ? ': runs go to the cpu backend (backend auto picks it)' : ''}`}`,
  );
  for (const g of t.gpus) {
    lines.push(
      `  GPU ${g.index}  ${g.name || '(name unknown)'}  ${(g.memoryBytes / 2 ** 30).toFixed(1)} GiB  bus ${g.busId || '?'}${g.computeCapability === undefined ? '' : `  compute capability ${formatComputeCapability(g.computeCapability)}`}`,
    );
  }
  if (t.gpus.length > 1) {
    const cols = t.gpus.map((g) => `GPU${g.index}`);
    lines.push('links (nvidia-smi topo: NV# = NVLinks; PIX/PXB/PHB/NODE/SYS = PCIe distance):');
    lines.push(`  ${''.padEnd(6)}${cols.map((c) => c.padEnd(7)).join('')}`);
    for (const a of t.gpus)
      lines.push(`  ${`GPU${a.index}`.padEnd(6)}${t.gpus.map((b) => linkCell(t, a.index, b.index).padEnd(7)).join('')}`);
    for (const l of t.links) {
      const nv =
        l.nvlinks > 0 ? `${l.nvlinks} NVLink${l.nvlinks === 1 ? '' : 's'}${l.via === 'NVSwitch' ? ' through NVSwitch' : ''}` : 'no NVLink';
      const p2p = l.p2p
        ? `, CUDA peer access ${l.p2p.access ? 'yes' : 'no'} (performance rank ${l.p2p.performanceRank}, native atomics ${l.p2p.nativeAtomics ? 'yes' : 'no'})`
        : '';
      const peak = l.peakGBps === null ? '' : `, peak ${+l.peakGBps.toFixed(1)} GB/s each way`;
      lines.push(`  GPU ${l.a} ↔ GPU ${l.b}: ${nv}${peak}, PCIe ${l.pcie || 'unknown'}${p2p}`);
    }
  }
  const versions = VERSION_NAMES.filter(([k]) => t.versions[k]).map(([k, name]) => `${name} ${t.versions[k]}`);
  lines.push(`versions: ${versions.join(', ') || 'none readable'}`);
  if (t.versions.ncclLibrary)
    lines.push(`NCCL library: ${t.versions.ncclLibrary}${process.env.CLAB_NCCL_LIBRARY ? ' (from CLAB_NCCL_LIBRARY)' : ''}`);
  for (const p of t.problems) lines.push(`  note: ${p}`);
  return lines;
}

const ORIGIN_TEXT: Record<NcclOrigin, string> = {
  system: 'system',
  pytorch: 'PyTorch wheel',
  option: '--nccl',
  env: 'CLAB_NCCL_LIBRARY',
};

/** "v1–v5" (the interfaces an NCCL looks up are a run of numbers). */
const interfaceRange = (versions: number[]) =>
  versions.length === 0 ? 'none' : versions.length === 1 ? `v${versions[0]}` : `v${versions[0]}–v${versions[versions.length - 1]}`;

function pluginText(kind: NcclPluginKind, code: number): string {
  const lab = labPluginInterfaceAt(kind, code);
  return `${kind} plug-in ${interfaceRange(pluginInterfacesAt(kind, code))} (${lab === null ? "the lab's: none of its" : `the lab's as v${lab}`})`;
}

/**
 * The NCCL libraries found, each with its version, and per version what it offers (✓ has it,
 * · not yet; ? where the version it came with is unconfirmed). `loaded`: the file runs load,
 * marked so. `features`: the table read (the lab's; a test gives its own).
 */
export function ncclLibrariesReport(
  found: readonly FoundNccl[],
  loaded: string | null,
  features: readonly NcclFeature[] = NCCL_FEATURES,
): string[] {
  const lines = [`NCCL libraries (each version read from the file's "NCCL version" string: nothing loaded, no GPU needed):`];
  if (!found.length) lines.push('  none found');
  for (const f of found) {
    const linked = f.file && f.file !== f.path ? ` → ${f.file}` : '';
    const what = f.banner ? `NCCL ${f.banner.version} for CUDA ${f.banner.cuda}` : f.problem;
    const runs = loaded !== null && (f.file ?? f.path) === loaded ? '  ← runs load this one' : '';
    lines.push(`  ${f.path}${linked}  [${f.origins.map((o) => ORIGIN_TEXT[o]).join(', ')}]  ${what}${runs}`);
  }
  const versions = new Map(found.flatMap((f) => (f.banner ? [[f.banner.version, f.banner.code] as const] : [])));
  for (const [version, code] of [...versions].sort((a, b) => b[1] - a[1])) {
    lines.push(`NCCL ${version}: ${pluginText('profiler', code)}, ${pluginText('tuner', code)}`);
    for (const { feature, lit } of ncclFeaturesAt(code, features))
      lines.push(`  ${lit ? '✓' : feature.confirmed ? '·' : '?'} ${featureText(feature)}`);
  }
  if (versions.size) lines.push("  (✓ has it, · not yet: it came later, ? not confirmed in NVIDIA's sources)");
  return lines;
}

/** The file a path names, links resolved (the loader's may be a link); null for none. */
function realPath(path: string | undefined): string | null {
  if (!path) return null;
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

interface DoctorFlags {
  json?: boolean;
  nccl?: string;
}

async function doctorCommand(flags: DoctorFlags): Promise<number> {
  let addon;
  let named: string | undefined;
  try {
    named = flags.nccl === undefined ? undefined : checkNcclLibraryPath(flags.nccl, '--nccl');
    addon = loadAddon();
  } catch (e) {
    if ((e as { code?: string }).code === 'CLAB_NCCL_LIBRARY') return reportUsageError(e);
    err(`clab: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  const backends = addon.backends(named ? { ncclLibrary: named } : undefined);
  const topology = addon.topology({ detailed: true });
  const envLibrary = process.env.CLAB_NCCL_LIBRARY;
  const search = machineNcclSearch([
    ...(named ? [{ path: named, origin: 'option' as const }] : []),
    ...(envLibrary ? [{ path: envLibrary, origin: 'env' as const }] : []),
  ]);
  const ncclLibraries = await findNcclLibraries(search);
  // What a run loads: the one named, else this process's (CLAB_NCCL_LIBRARY's or the loader's).
  const loaded = ncclLibraries.find((f) => f.origins.includes(named ? 'option' : 'env'))?.file ?? realPath(topology.versions.ncclLibrary);
  if (flags.json) out(JSON.stringify({ backends, topology, ncclLibraries }));
  else for (const line of [...doctorReport(backends, topology), ...ncclLibrariesReport(ncclLibraries, loaded)]) out(line);
  return EXIT_OK;
}

export const registerDoctor: RegisterCommand = (program, setExit) => {
  program
    .command('doctor')
    .description(
      'Show the backends, GPUs, links between GPUs, driver, CUDA and NCCL versions of this machine, and every NCCL library found with what its version offers.',
    )
    .option('--json', 'print { backends, topology, ncclLibraries } as JSON')
    .option('--nccl <path>', 'an NCCL library to list too, and to judge the nccl backend by (as `clab run --nccl` would load it)')
    .action(async (flags: DoctorFlags) => setExit(await doctorCommand(flags)));
};
