// The hosts of a run whose ranks joined from a launcher, as the CLI prints them, the trace names
// them and the pair matrix groups them: which host each rank ran on, with that host's environment,
// its clock offset to the core's and the bound on it. Pure: reads a run record.
import { ranksByHost } from '../run/hosts/hosts.js';
import type { Environment, RunRecord } from '../run/record/record.js';

type WithHosts = Pick<RunRecord, 'hosts' | 'environment'>;

/** The host rank `rank` ran on, or null where every rank was forked by the core. */
export function hostOfRank(record: Pick<RunRecord, 'hosts'>, rank: number): string | null {
  return record.hosts?.find((h) => h.ranks.includes(rank))?.name ?? null;
}

/** The environment of rank `rank`'s host (its GPUs, links, versions): the record's own where ranks were forked. */
export function environmentOfRank(record: WithHosts, rank: number): Environment {
  return record.hosts?.find((h) => h.ranks.includes(rank))?.environment ?? record.environment;
}

/** Ranks in the order the matrix shows them: host by host (the host of rank 0 first), in rank order within one. */
export function rankOrder(record: Pick<RunRecord, 'hosts'>, world: number): number[] {
  const groups = ranksByHost(record.hosts);
  const grouped = groups.flatMap((g) => g.ranks).filter((r) => r < world);
  return grouped.length === world ? grouped : Array.from({ length: world }, (_, r) => r);
}

const ms = (ns: number) => `${(ns / 1e6).toFixed(3)} ms`;

const rankList = (ranks: number[]) => {
  const sorted = [...ranks].sort((a, b) => a - b);
  const contiguous = sorted.every((r, i) => i === 0 || r === sorted[i - 1] + 1);
  return sorted.length > 2 && contiguous ? `${sorted[0]}–${sorted.at(-1)}` : sorted.join(', ');
};

/** One line per host (ranks, address, GPUs, versions, clock) and the warnings where hosts differ. */
export function hostLines(record: Pick<RunRecord, 'hosts' | 'hostWarnings'>): string[] {
  if (!record.hosts?.length) return [];
  const lines = [`hosts: ${record.hosts.length} (ranks joined from a launcher; times on the core's clock)`];
  for (const h of ranksByHost(record.hosts).map((g) => record.hosts!.find((x) => x.name === g.name && x.ranks.includes(g.ranks[0]))!)) {
    const e = h.environment;
    const gpus = e.gpus.length ? `${e.gpus.length} × ${e.gpus[0].name}` : 'no GPU';
    const versions = ['driver', 'cuda', 'nccl']
      .filter((k) => e.versions[k])
      .map((k) => `${k} ${e.versions[k]}`)
      .join(', ');
    lines.push(
      `  ${h.name} (${h.address}): rank${h.ranks.length === 1 ? '' : 's'} ${rankList(h.ranks)}; ${gpus}${versions ? `; ${versions}` : ''}; clock ${h.clock.offsetNs >= 0 ? '+' : '−'}${ms(Math.abs(h.clock.offsetNs))} ± ${ms(h.clock.errorNs)}`,
    );
  }
  for (const w of record.hostWarnings ?? []) lines.push(`  warning: ${w}`);
  return lines;
}

/** What the trace says of the clocks: each host's offset and the bound within which its events line up. */
export function clockNote(
  record: Pick<RunRecord, 'hosts'>,
): { note: string; hosts: { name: string; ranks: number[]; offsetNs: number; errorNs: number }[] } | null {
  if (!record.hosts?.length) return null;
  const worst = Math.max(...record.hosts.map((h) => h.clock.errorNs));
  return {
    note: `events of each host moved onto the core's clock by the offset measured when it joined (best of its pings by round trip); they line up across hosts within ±${ms(worst)}`,
    hosts: record.hosts.map((h) => ({ name: h.name, ranks: h.ranks, offsetNs: h.clock.offsetNs, errorNs: h.clock.errorNs })),
  };
}
