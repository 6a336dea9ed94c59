// `clab doctor`: what this machine offers: the backends (and why one is unavailable), the GPUs,
// the link between every pair (NVLinks, PCIe distance, CUDA peer access) and the driver, CUDA,
// NCCL and cuBLAS versions.
import { hostname } from 'node:os';
import { formatComputeCapability } from '../../../shared/ops/gpu-support.js';
import { loadAddon } from '../../../addon/addon.js';
import type { BackendAvailability, Topology } from '../../../addon/native-api.js';
import { EXIT_FAILED, EXIT_OK, err, out, type RegisterCommand } from '../common.js';

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

function doctorCommand(flags: { json?: boolean }): number {
  let addon;
  try {
    addon = loadAddon();
  } catch (e) {
    err(`clab: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  const backends = addon.backends();
  const topology = addon.topology({ detailed: true });
  if (flags.json) out(JSON.stringify({ backends, topology }));
  else for (const line of doctorReport(backends, topology)) out(line);
  return EXIT_OK;
}

export const registerDoctor: RegisterCommand = (program, setExit) => {
  program
    .command('doctor')
    .description('Show the backends, GPUs, links between GPUs, and driver, CUDA and NCCL versions of this machine.')
    .option('--json', 'print { backends, topology } as JSON')
    .action((flags: { json?: boolean }) => setExit(doctorCommand(flags)));
};
