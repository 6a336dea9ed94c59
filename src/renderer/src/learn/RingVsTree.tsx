// all_reduce as NCCL's ring and as its double binary tree, side by side and played stage by stage:
// the ranks on a circle, each link drawn as thick as the bytes it carries over the call, the links
// of the stage under way lit; under each, the α-β cost for the step's world and size, and what
// NCCL chose where the run's record says.
import { useMemo } from 'react';
import type { Environment } from '../../../shared/run/record/record.js';
import { linkPeak } from '../../../shared/learn/peak.js';
import {
  busiestLink,
  ncclChoiceText,
  ringAllReduce,
  treeAllReduce,
  MAX_PLAYED_RANKS,
  type AlgorithmPlay,
} from '../../../shared/learn/ring-tree.js';
import { formatBytes } from '../ui/units';
import { rankColour } from './MovesDiagram';
import { StageButtons } from './StageButtons';
import { useStagePlayer } from './useStagePlayer';

/** When the record names no link: a reference one, said as such (one NVLink 3 direction, a few µs a hop). */
const REFERENCE_LINK = { latencyUs: 5, peakGBps: 25, from: 'a reference link (α 5 µs a hop, β 25 GB/s), the run names none' };
const SIZE = 240;
const STAGE_MS = 900;

interface Props {
  world: number;
  bytes: number;
  environment: Environment | null;
  devices: number[];
  /** NCCL's algorithm counts for the step (the profiler's), where recorded. */
  ncclAlgo?: Record<string, number>;
}

function linkOf(environment: Environment | null, devices: number[]) {
  const peak = environment ? linkPeak(environment, devices) : null;
  return peak
    ? {
        latencyUs: REFERENCE_LINK.latencyUs,
        peakGBps: peak.gbps,
        from: `β ${+peak.gbps.toFixed(1)} GB/s: ${peak.from}; α ${REFERENCE_LINK.latencyUs} µs a hop (reference)`,
      }
    : REFERENCE_LINK;
}

function Diagram({ play, stage, heaviest }: { play: AlgorithmPlay; stage: number; heaviest: number }) {
  const r = SIZE / 2 - 28;
  const at = (rank: number) => {
    const angle = (2 * Math.PI * rank) / play.world - Math.PI / 2;
    return { x: SIZE / 2 + r * Math.cos(angle), y: SIZE / 2 + r * Math.sin(angle) };
  };
  const live = new Set((play.stages[stage]?.links ?? []).map((l) => `${l.from}>${l.to}`));
  const line = (from: number, to: number) => {
    const a = at(from);
    const b = at(to);
    // Each direction its own side of the pair, so that both show.
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len = Math.hypot(dx, dy) || 1;
    const [ox, oy] = [(-dy / len) * 4, (dx / len) * 4];
    const shrink = 16 / len;
    return { x1: a.x + dx * shrink + ox, y1: a.y + dy * shrink + oy, x2: b.x - dx * shrink + ox, y2: b.y - dy * shrink + oy };
  };
  return (
    <svg
      width={SIZE}
      height={SIZE}
      viewBox={`0 0 ${SIZE} ${SIZE}`}
      role="img"
      aria-label={`${play.algorithm}: links by load, stage ${stage + 1}`}
      data-testid={`${play.algorithm}-diagram`}
      data-stage={stage}
      data-live-links={live.size}
    >
      <defs>
        <marker
          id={`arrow-${play.algorithm}`}
          viewBox="0 0 10 10"
          refX="8"
          refY="5"
          markerWidth="5"
          markerHeight="5"
          orient="auto-start-reverse"
        >
          <path d="M0 0 L10 5 L0 10 z" className="rt-arrow" />
        </marker>
      </defs>
      {play.totals.map((l) => {
        const on = live.has(`${l.from}>${l.to}`);
        return (
          <line
            key={`${l.from}>${l.to}`}
            {...line(l.from, l.to)}
            className={on ? 'rt-link rt-live' : 'rt-link'}
            strokeWidth={1 + 5 * (l.bytes / Math.max(1, heaviest))}
            markerEnd={on ? `url(#arrow-${play.algorithm})` : undefined}
            data-bytes={l.bytes}
          >
            <title>{`${l.from} → ${l.to}: ${formatBytes(Math.round(l.bytes))} over the call`}</title>
          </line>
        );
      })}
      {Array.from({ length: play.world }, (_, rank) => {
        const p = at(rank);
        return (
          <g key={rank}>
            <circle cx={p.x} cy={p.y} r={13} fill={rankColour(rank)} />
            <text x={p.x} y={p.y + 4} textAnchor="middle" fill="#ffffff" fontSize={12} fontWeight={600}>
              {rank}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function RingVsTree({ world, bytes, environment, devices, ncclAlgo }: Props) {
  const link = useMemo(() => linkOf(environment, devices), [environment, devices]);
  const plays = useMemo(
    () => (world >= 2 && world <= MAX_PLAYED_RANKS ? [ringAllReduce(world, bytes, link), treeAllReduce(world, bytes, link)] : null),
    [world, bytes, link],
  );
  const stages = plays ? Math.max(...plays.map((p) => p.stages.length)) : 0;
  const player = useStagePlayer(stages, STAGE_MS, `${world}:${bytes}`);
  if (!plays) return null;
  const k = Math.min(Math.floor(player.t), stages - 1);
  const heaviest = Math.max(...plays.map(busiestLink));
  const faster = plays[0].timeUs <= plays[1].timeUs ? 'ring' : 'tree';
  const nccl = ncclChoiceText(ncclAlgo);
  return (
    <section className="ring-vs-tree" data-testid="ring-vs-tree" aria-label="Ring against tree">
      <h3>
        Ring against tree: all_reduce of {formatBytes(bytes)} on {world} ranks
      </h3>
      <div className="learn-controls">
        <StageButtons player={player} stages={stages} testIdPrefix="rt" playLabel="play both" />
        <span className="learn-stage" data-testid="rt-stage">
          stage {k + 1} of {stages}
        </span>
      </div>
      <div className="rt-sides">
        {plays.map((p) => (
          <figure key={p.algorithm} className="rt-side" data-testid={`rt-${p.algorithm}`}>
            <figcaption>
              <strong>{p.algorithm}</strong>: {p.stages.length} stages, {formatBytes(Math.round(busiestLink(p)))} on the busiest link
            </figcaption>
            <Diagram play={p} stage={k} heaviest={heaviest} />
            <p className="dim">{k < p.stages.length ? p.stages[k].label : `done after ${p.stages.length} stages`}</p>
            <p className="dim">{p.summary}</p>
            <p data-testid={`rt-cost-${p.algorithm}`}>α-β: {p.timeUs.toFixed(1)} µs</p>
          </figure>
        ))}
      </div>
      <p data-testid="rt-verdict">
        The model has the {faster} faster at this size ({plays[0].timeUs.toFixed(1)} µs ring, {plays[1].timeUs.toFixed(1)} µs tree), on{' '}
        {link.from}. {nccl ?? 'The record does not say which NCCL chose (the cpu backend, or a run without the profiler).'}
      </p>
    </section>
  );
}
