// A compare block's summary: each variant's comm and compute time against running alone, what
// overlapping them saved, and why where it did not. Pure.
import { CPU_RUNS_NCCL_SETTINGS_ALIKE, ncclSettingBlocks } from '../results/nccl-settings.js';
import { READABLE_SPREAD, speedupSpread, type SpeedupSpread } from '../results/speedup-spread.js';
import { formatMicroseconds as us } from '../results/results-table.js';
import type { Plan } from '../plan/types.js';
import type { BackendName } from '../run/rank/protocol.js';
import type { CompareRecord } from '../run/record/record.js';

type CompareVariant = CompareRecord['variants'][number];

/** A later variant's comm and compute times against the first's: what running them together cost each. */
function sharingLine(v: CompareVariant, first: CompareVariant): string[] {
  const part = (label: string, x: number | null | undefined, base: number | null | undefined) =>
    x && base ? `${label} ${us(x)} µs (×${(x / base).toFixed(2)})` : null;
  const parts = [part('comm', v.commUs, first.commUs), part('compute', v.computeUs, first.computeUs)].filter(
    (p): p is string => p !== null,
  );
  return parts.length ? [`  ${''.padEnd(12)} ${parts.join(', ')} against ${first.name}`] : [];
}

type Ideal = NonNullable<CompareRecord['ideal']>;

/**
 * What running together cost a variant against the same work alone: its transfer against a serial
 * variant's of the same transport (the fastest transfer alone where none), its multiply against the
 * multiply alone.
 */
function costLine(v: CompareVariant, variants: CompareVariant[], ideal: Ideal, width: number): string[] {
  const alone = variants.find((o) => o.serial && o.transport === v.transport && o.commUs);
  const commBase = alone ? { us: alone.commUs!, from: alone.name } : { us: ideal.commUs, from: ideal.commFrom };
  const parts = [
    v.commUs ? `transfer ${us(v.commUs)} µs (×${(v.commUs / commBase.us).toFixed(2)} against ${commBase.from})` : null,
    v.computeUs ? `GEMM ${us(v.computeUs)} µs (×${(v.computeUs / ideal.computeUs).toFixed(2)} against alone)` : null,
  ].filter((p): p is string => p !== null);
  const lines = parts.length ? [`  ${''.padEnd(width)} ${parts.join(', ')}`] : [];
  // The rest of the block beside the multiply: what keeps a variant from the ideal besides a slower GEMM.
  if (v.computeStartUs !== undefined && v.afterComputeUs !== undefined) {
    // Both are medians over the repeats, as the block's time is, each of its own: where repeats
    // differ widely, the multiply's median start can pass the block's median time. A start cannot
    // lie past the block: said as what it is, not as a place in the block.
    if (v.durationUs !== null && v.computeStartUs >= v.durationUs) {
      lines.push(
        `  ${''.padEnd(width)} the GEMM began late in the block: its median start over the repeats (${us(v.computeStartUs)} µs) is past the block's median time (${us(v.durationUs)} µs), so the repeats differ too much to say where`,
      );
    } else {
      const end = v.afterComputeUs < 0.05 ? 'and ended it' : `and the block ended ${us(v.afterComputeUs)} µs after it`;
      lines.push(`  ${''.padEnd(width)} the GEMM began ${us(v.computeStartUs)} µs into the block ${end}`);
    }
  }
  return lines;
}

/**
 * The overlap lesson recorded on 2 × H200 (overlap-gpu.scenario.json's variants, repeats within
 * ×1.1 of each other), in the repository: replayed by `clab replay`, opened by the app's Open….
 */
export const OVERLAP_LESSON_RECORD = 'docs/records/overlap-gpu-variants-h200x2.run.json';

/** How much slower a multiply beside communication may be before the summary explains why. */
const SLOWER_COMPUTE = 1.05;

/**
 * A compare block's summary. `backend` (the run's): on GPUs, a later variant whose multiply ran
 * slower than the first's gets a line on why (measured on an H100: a GEMM's time goes as the SMs
 * it gets, 633 µs on 132, ×1.27 on 100, ×3.78 on 33). Where serial variants measured the transfer
 * and the multiply alone (newer records), every variant is held against the true ideal: the longer
 * of the fastest transfer alone and the multiply alone. With the run's `plan`, a block run on cpu
 * whose variants differ only in NCCL's settings says first that they ran alike.
 */
export function compareSummary(c: CompareRecord, backend?: BackendName, plan?: Pick<Plan, 'steps'>): string[] {
  const lines = [`# ${c.label}`];
  if (backend === 'cpu' && plan && ncclSettingBlocks(plan).has(c.index)) lines.push(`  ${CPU_RUNS_NCCL_SETTINGS_ALIKE}`);
  if (c.variants.every((v) => v.repeatsUs.length === 0)) return [...lines, '  not measured: the run ended before this block ran'];
  const [first] = c.variants;
  const ideal = c.ideal ?? null;
  const width = Math.max(12, ...c.variants.map((v) => v.name.length));
  const noisy: SpeedupSpread[] = [];
  for (const v of c.variants) {
    const against = ideal && v.durationUs !== null ? `  ×${(v.durationUs / ideal.us).toFixed(2)} the ideal` : '';
    if (v.refused) {
      lines.push(`  ${v.name.padEnd(width)} refused: ${v.refused}`);
      continue;
    }
    const spread = v === first ? null : speedupSpread(first.repeatsUs, v.repeatsUs);
    if (spread && !spread.readable) noisy.push(spread);
    const repeats =
      v.repeatsUs.length > 1
        ? `  (${v.repeatsUs.length} repeats: ${us(Math.min(...v.repeatsUs))}–${us(Math.max(...v.repeatsUs))} µs${spread ? `; speed-up ${speedupRange(spread)}` : ''})`
        : '';
    lines.push(
      `  ${v.name.padEnd(width)} ${v.durationUs === null ? 'n/a' : `${us(v.durationUs)} µs`}${v.speedup !== null ? `  speed-up ×${v.speedup.toFixed(2)}` : ''}${against}${v.nccl ? `  NCCL: ${v.nccl}` : ''}${repeats}`,
    );
    if (ideal) {
      if (!v.serial) lines.push(...costLine(v, c.variants, ideal, width));
    } else if (v !== first) {
      lines.push(...sharingLine(v, first));
    }
    const base = ideal ? ideal.computeUs : v === first ? null : first.computeUs;
    const slower = v.computeUs && base ? v.computeUs / base : 0;
    if (backend === 'nccl' && slower >= SLOWER_COMPUTE && v.transport !== 'copy-engine') {
      lines.push(
        `  ${''.padEnd(width)} the multiply took ×${slower.toFixed(2)} beside the communication: a GEMM's time goes as the SMs it gets, and NCCL's kernels held some (fewer with "registerBuffers" and NCCL_MAX_P2P_NCHANNELS; none with "transport": "copy-engine")`,
      );
    }
  }
  if (ideal) {
    lines.push(
      `  ideal ${us(ideal.us)} µs: the longer of the fastest transfer alone (${us(ideal.commUs)} µs, ${ideal.commFrom}) and the GEMM alone${backend === 'nccl' ? ' on all SMs' : ''} (${us(ideal.computeUs)} µs, ${ideal.computeFrom}), measured in this run`,
    );
  }
  if (c.commUs !== null && c.computeUs !== null) {
    lines.push(
      `  comm ${us(c.commUs)} µs + compute ${us(c.computeUs)} µs; ideal overlap speed-up ×${c.idealSpeedup?.toFixed(2) ?? 'n/a'} (comm + compute vs max(comm, compute))`,
    );
  }
  if (noisy.length) {
    const widest = noisy.reduce((a, b) => (b.high / b.low > a.high / a.low ? b : a));
    lines.push(
      `  ⚠ too noisy to read: the speed-up ranges ${speedupRange(widest)} over the repeats (its ends more than ×${READABLE_SPREAD} apart), so the median says little; ` +
        `more "repeat", or a machine with fewer other jobs${backend === 'cpu' ? ' (cpu ranks share its cores)' : ''}, narrows it`,
    );
    // A block that multiplies beside its transfers: the lesson, measured where nothing else ran.
    if (c.variants.some((v) => v.computeUs))
      lines.push(`  the same lesson measured on 2 × H200 with nothing else running: ${OVERLAP_LESSON_RECORD}`);
  }
  return lines;
}

const speedupRange = (s: SpeedupSpread) => `×${s.low.toFixed(2)}–×${s.high.toFixed(2)}`;
