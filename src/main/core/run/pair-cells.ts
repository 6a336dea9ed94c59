// What a pairs step's cell says beside its figure, composed when the record is written (every
// rank's output is in by then): the transports NCCL chose for the pair, read from the INFO lines
// the pair's ranks printed while the pair ran, and, where the pair failed, the first rank's error
// with the NCCL WARN lines it printed meanwhile and the hints that apply.
import { isNcclWarnLine, ncclHints } from '../../../shared/run/nccl/nccl-hints.js';
import type { PlanStep } from '../../../shared/plan/types.js';
import type { BackendName } from '../../../shared/run/rank/protocol.js';
import type { LogLine, PairCell, StepRecord } from '../../../shared/run/record/record.js';
import { WARN_LINES_SHOWN } from './rank-failure.js';

/** "… NCCL INFO Channel 00/1 : 0[0] -> 1[1] via P2P/CUMEM/read" → P2P/CUMEM/read (also SHM/…, NET/…). */
const VIA = / NCCL INFO Channel [^:]*: .*?\bvia (\S+)/;

/** "… NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0> [1]eth1:…" or "NET/IB : Using [0]mlx5_0:1/IB [1]…; OOB …". */
const NET_USING = / NCCL INFO NET\/(\w+)\s*: Using (.*)$/;
const NIC = /\[(\d+)\]([^\s;]+)/g;

/**
 * The NICs each network transport uses, by its index, from NCCL's INFO lines ("Socket" → 0 →
 * "eth0:10.0.0.1<0>"): a pair across hosts says "via NET/Socket/0", whose last number is that index.
 */
export function nicsIn(lines: readonly string[]): Map<string, Map<number, string>> {
  const nics = new Map<string, Map<number, string>>();
  for (const line of lines) {
    const m = NET_USING.exec(line);
    if (!m) continue;
    const byIndex = nics.get(m[1]) ?? new Map<number, string>();
    for (const nic of m[2].split(';')[0].matchAll(NIC)) byIndex.set(Number(nic[1]), nic[2]);
    nics.set(m[1], byIndex);
  }
  return nics;
}

/** "NET/Socket/0" → "NET/Socket/0 (eth0:10.0.0.1<0>)" where the NIC is known; other transports as they are. */
function withNic(transport: string, nics: Map<string, Map<number, string>>): string {
  const m = /^NET\/(\w+)\/(\d+)/.exec(transport);
  const nic = m ? nics.get(m[1])?.get(Number(m[2])) : undefined;
  return nic ? `${transport} (${nic})` : transport;
}

/** The distinct transports in NCCL INFO lines, in the order first seen, a network's with its NIC; null where none says. */
export function transportsIn(lines: readonly string[], nics: Map<string, Map<number, string>> = nicsIn(lines)): string | null {
  const seen: string[] = [];
  for (const line of lines) {
    const m = VIA.exec(line);
    if (m && !seen.includes(m[1])) seen.push(m[1]);
  }
  return seen.length ? seen.map((t) => withNic(t, nics)).join(', ') : null;
}

/**
 * The log lines inside each window, by the window's step, in one pass: the lines are in the
 * order they came (their atNs rising), and the windows follow one another without overlapping.
 */
function linesByWindow(logs: readonly LogLine[], windows: ReadonlyMap<number, { startNs: number; endNs: number }>): Map<number, LogLine[]> {
  const ordered = [...windows].sort((x, y) => x[1].startNs - y[1].startNs);
  const out = new Map<number, LogLine[]>(ordered.map(([step]) => [step, []]));
  let w = 0;
  for (const line of logs) {
    while (w < ordered.length && line.atNs > ordered[w][1].endNs) w++;
    if (w === ordered.length) break;
    if (line.atNs >= ordered[w][1].startNs) out.get(ordered[w][0])!.push(line);
  }
  return out;
}

/**
 * How far an error code is from a pair's cause: -1 a fault the scenario injected, the cause by
 * definition (the other rank's own error then follows from it: on cpu ranks, attaching to the
 * pair's communicator that the failed rank has already taken down, which of the two comes first
 * being a race); 0 a cause; 1 a call aborted because the other rank gave the pair up (again a
 * race); 2 a step not measured because the pair had failed earlier.
 */
const consequence = (code: string) =>
  code === 'CLAB_INJECTED_ERROR' ? -1 : code === 'CLAB_PAIR_DOWN' ? 2 : code === 'CLAB_ABORTED' ? 1 : 0;

/** What a pair past its timeout suggests: no data moved (a hang), or data moved too slowly for the timeout. */
const PAIR_TIMEOUT_HINTS: Record<string, string[]> = {
  CLAB_PAIR_TIMEOUT: [
    'a pair that hangs: the link, or one GPU of the pair, is not passing data; try the pair alone, and NCCL_P2P_DISABLE=1 or NCCL_SHM_DISABLE=1 to see whether another transport works',
  ],
  CLAB_PAIR_SLOW: [
    "a pair slower than its timeout: data moved (its warm-up finished), but the timed iterations did not finish in time; raise the pair's timeoutMs, or lower its bytes or iters, to measure it",
  ],
};

/**
 * The pair's cell for each pairs step in `steps`. `windows` maps a pair unit's first step to the
 * time its gate opened and the next unit's gate (or the run's end): the output a rank printed in
 * between belongs to that pair, as pairs run one at a time.
 */
export function pairCells(
  plan: { steps: PlanStep[] },
  steps: StepRecord[],
  logs: readonly LogLine[],
  windows: ReadonlyMap<number, { startNs: number; endNs: number }>,
  backend: BackendName,
): Map<number, PairCell> {
  const cells = new Map<number, PairCell>();
  const lines = linesByWindow(logs, windows);
  let unitLines: LogLine[] = [];
  let transport: string | null = null;
  const byIndex = new Map(steps.map((s) => [s.index, s]));
  const nicsByRank = new Map<number, Map<string, Map<number, string>>>();
  const nicsOf = (rank: number) => {
    if (!nicsByRank.has(rank)) nicsByRank.set(rank, nicsIn(logs.filter((l) => l.rank === rank).map((l) => l.text)));
    return nicsByRank.get(rank)!;
  };
  for (const planStep of plan.steps) {
    const a = planStep.action;
    if (a.kind !== 'pair') continue;
    if (a.opens) {
      unitLines = (lines.get(planStep.index) ?? []).filter((l) => l.rank === a.from || l.rank === a.to);
      // A process says which NICs its network transport uses once, at its first communicator: look in all its lines.
      const nics = new Map([...nicsOf(a.to), ...nicsOf(a.from)]);
      transport =
        backend === 'cpu'
          ? 'shared memory (cpu backend)'
          : transportsIn(
              unitLines.map((l) => l.text),
              nics,
            );
    }
    const step = byIndex.get(planStep.index);
    if (!step) continue;
    const failed = step.ranks.filter((r) => r.error).sort((x, y) => consequence(x.error!.code) - consequence(y.error!.code));
    const first = failed[0];
    let error: PairCell['error'] = null;
    if (first?.error) {
      const warnings = unitLines
        .filter((l) => l.rank === first.rank && isNcclWarnLine(l.text))
        .slice(-WARN_LINES_SHOWN)
        .map((l) => l.text.trim());
      const injected = a.fault !== null;
      const hints = injected
        ? [
            `this failure was injected by the scenario's faults list (${a.fault}); a real broken link shows here the same way, with NCCL's own error and WARN lines`,
          ]
        : [...ncclHints(first.error.code, [first.error.message, ...warnings]), ...(PAIR_TIMEOUT_HINTS[first.error.code] ?? [])];
      error = { rank: first.rank, code: first.error.code, message: first.error.message, warnings, hints, injected };
    }
    const how = a.measure === 'copy' ? (step.ranks.find((r) => r.rank === a.from)?.note ?? null) : null;
    cells.set(planStep.index, { transport: a.measure === 'copy' ? null : transport, how, error });
  }
  return cells;
}
