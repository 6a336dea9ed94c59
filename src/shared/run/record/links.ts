// What joins two GPUs, in the words `clab doctor` and nvidia-smi topo use (NV18, PIX … SYS), and
// how fast that link can go at most, read from a run record's environment. Pure: the pair
// matrices and the α-β model both read a link's peak from here.
import type { Environment } from './record.js';

export interface LinkInfo {
  /** nvidia-smi topo's words: NV18 for 18 NVLinks (NV18 via NVSwitch), else the PCIe distance; "?" unknown. */
  text: string;
  nvlinks: number;
  /** PCIe distance (PIX/PXB/PHB/NODE/SYS, board), '' unknown. */
  pcie: string;
  /** One direction's peak in GB/s: NVLink count × per-link rate, else PCIe's; null when unknown. */
  peakGBps: number | null;
  /** Where peakGBps comes from, in words ("18 NVLinks × 25 GB/s"). */
  peakFrom: string | null;
}

/** One lane of PCIe, one direction, GB/s after line coding, by generation (gen 1–2: 8b/10b; 3+: 128b/130b). */
const PCIE_LANE_GBPS: Record<number, number> = { 1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563 };

/** One direction of a PCIe link of `gen` × `width` lanes, GB/s; null for what is unknown. */
export function pciePeakGBps(gen: number | undefined, width: number | undefined): number | null {
  if (!gen || !width) return null;
  const lane = PCIE_LANE_GBPS[gen];
  return lane === undefined ? null : lane * width;
}

/**
 * The link between CUDA devices `a` and `b` as the environment recorded it (null: not a GPU pair
 * the record knows, e.g. a cpu run or an older record). Where there is no NVLink, the peak is the
 * slower GPU's PCIe link (the path between them may be slower still: SYS crosses CPU sockets).
 */
export function linkBetween(env: Pick<Environment, 'gpus' | 'links'>, a: number, b: number): LinkInfo | null {
  if (a === b) return null;
  const l = env.links?.find((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a));
  if (!l) return null;
  if (l.nvlinks > 0) {
    const perLink = l.peakGBps === null ? null : l.peakGBps / l.nvlinks;
    return {
      text: `NV${l.nvlinks}`,
      nvlinks: l.nvlinks,
      pcie: l.pcie,
      peakGBps: l.peakGBps,
      peakFrom:
        perLink === null
          ? null
          : `${l.nvlinks} NVLink${l.nvlinks === 1 ? '' : 's'}${l.via === 'NVSwitch' ? ' (NVSwitch)' : ''} × ${+perLink.toFixed(2)} GB/s`,
    };
  }
  const ga = env.gpus.find((g) => g.index === a);
  const gb = env.gpus.find((g) => g.index === b);
  const peaks = [ga, gb].map((g) => pciePeakGBps(g?.pcieGen, g?.pcieWidth));
  const slower = peaks.some((p) => p === null) ? null : Math.min(...(peaks as number[]));
  const g = slower === null ? null : peaks[0] === slower ? ga : gb;
  return {
    text: l.pcie || '?',
    nvlinks: 0,
    pcie: l.pcie,
    peakGBps: slower,
    peakFrom: slower === null || !g ? null : `PCIe gen ${g.pcieGen} ×${g.pcieWidth}`,
  };
}
