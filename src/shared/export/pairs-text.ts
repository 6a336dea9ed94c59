// A pairs step as text matrices (sender row, receiver column), with what joins each pair and why a
// pair failed: what `clab run` and `clab replay` print.
import { pad } from './sweep-text.js';
import { formatMicroseconds as us } from '../results/results-table.js';
import type { RunRecord } from '../run/record/record.js';
import { pairErrorWord, pairsView, type PairsCell, type PairsMatrix } from '../results/pairs.js';
import { hostOfRank, rankOrder } from '../results/hosts.js';
import { formatBytes } from '../data/units.js';

export function pairsMatrix(record: Pick<RunRecord, 'plan' | 'steps' | 'environment' | 'hosts'>, pairs: number): string[] {
  const view = pairsView(record, pairs, formatBytes);
  const { spec, world } = view;
  const width = 11;
  // Ranks from several hosts: rows and columns host by host, each rank labelled with its host.
  const order = rankOrder(record, world);
  const several = new Set(order.map((r) => hostOfRank(record, r))).size > 1;
  const label = (r: number) => (several ? `${r} ${hostOfRank(record, r)}`.slice(0, width - 1) : String(r));
  const cell = (m: PairsMatrix, c: PairsCell): string => {
    switch (c.kind) {
      case 'self':
        return '-';
      case 'not-measured':
        return '';
      case 'unfinished':
        return c.step.verdict === 'stopped' ? 'stopped' : 'not run';
      case 'error':
        return pairErrorWord(c.error?.code);
      case 'measured':
        return c.value === null ? 'n/a' : m.unit === 'µs' ? us(c.value) : c.value >= 0.01 ? c.value.toFixed(2) : c.value.toPrecision(2);
    }
  };
  const table = (m: PairsMatrix) => [
    `# ${m.title}`,
    `${pad('from \\ to', several ? width : 10)}${order.map((j) => pad(label(j), width)).join('')}`,
    ...order.map((i) => `${pad(label(i), several ? width : 10)}${order.map((j) => pad(cell(m, m.rows[i][j]), width)).join('')}`),
  ];
  const failed = view.failures.length;
  const how = view.links.find((l) => l.how)?.how;
  const lines = [
    `# ${spec.label} (${spec.path}), ${formatBytes(spec.bytes)}${view.both ? ' each way at once (cells i,j and j,i: one exchange)' : ' one way: rows send, columns receive'}; ` +
      `${view.pairsMeasured - failed} of ${view.pairsMeasured} pair${view.pairsMeasured === 1 ? '' : 's'} measured${failed ? `, ${failed} failed` : ''}`,
    ...view.matrices.flatMap(table),
  ];
  if (how) lines.push(`# plain copy: ${how}`);
  const links = view.links.filter((l) => l.link || l.transport);
  if (links.length) {
    lines.push("# each pair: link, NCCL transport, share of the link's one-way peak");
    for (const l of links) {
      const peak = l.link?.peakGBps ? ` of ${+l.link.peakGBps.toFixed(1)} GB/s (${l.link.peakFrom})` : '';
      const share = l.share !== null ? `send/recv ${(100 * l.share).toFixed(0)} %${peak}` : '';
      const copyShare = l.copyShare !== null ? `, copy ${(100 * l.copyShare).toFixed(0)} %` : '';
      const between = hostOfRank(record, l.from) !== hostOfRank(record, l.to) ? 'hosts' : null;
      lines.push(
        `#   ${l.from}${view.both ? '⇄' : '→'}${l.to}  ${(l.link?.text ?? between ?? (record.environment.backend === 'cpu' ? 'host' : '?')).padEnd(5)} ${(l.transport ?? 'transport unknown').padEnd(18)} ${share}${copyShare}`.trimEnd(),
      );
    }
  }
  for (const f of view.failures) {
    const e = f.error;
    lines.push(`# pair ${f.from}${view.both ? '⇄' : '→'}${f.to} failed${e ? ` on rank ${e.rank}: ${e.code}: ${e.message}` : ''}`);
    for (const w of e?.warnings ?? []) lines.push(`#     ${w}`);
    for (const h of e?.hints ?? []) lines.push(`#   hint: ${h}`);
  }
  for (const m of view.matrices) {
    for (const c of m.rows.flat())
      if (c.kind === 'measured' && c.step.verdict === 'fail') lines.push(`# ${c.step.label}: ${c.step.wrong} wrong`);
  }
  return lines;
}
