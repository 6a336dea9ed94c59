// The ranks as columns: each with its input (chunks, with values for small tensors) and its
// working buffer (what it holds after the stages played so far), and the stage under way drawn as
// chunks travelling from sender to receiver, a reduction marked where the receiver combines them.
import { useMemo } from 'react';
import type { Scalar } from '../../../shared/data/dtypes.js';
import { chunkRange, type Piece, type SlotContent } from '../../../shared/learn/moves.js';
import { slotValues } from '../../../shared/learn/values.js';
import { formatScalar } from '../../../shared/data/check.js';
import { COLLECTIVE_DESCRIPTORS } from '../../../shared/ops/index.js';
import { carriesElements, sentContent, slotRows, type LearnModel } from './model';

/** One colour per rank (cycled past eight). */
export const RANK_COLOURS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];
export const rankColour = (rank: number) => RANK_COLOURS[rank % RANK_COLOURS.length];

const COL_W = 150;
const GAP = 44;
const PAD = 12;
const CELL_H = 30;
const CELL_GAP = 4;
const HEADER_H = 26;
const LABEL_H = 18;

const REDOP_JOIN: Record<string, string> = { sum: ' + ', avg: ' + ', prod: ' × ' };

interface Props {
  model: LearnModel;
  /** Stages done, plus the fraction of the one under way. */
  t: number;
  /** Before the step has run: outputs are for the learner to predict. */
  hideOutcome: boolean;
}

export const diagramWidth = (world: number) => PAD * 2 + world * COL_W + (world - 1) * GAP;

const columnX = (rank: number) => PAD + rank * (COL_W + GAP);

function layout(model: LearnModel) {
  const rows = slotRows(model);
  const shownRows = (buffer: number[][]) => Math.max(1, ...buffer.map((r) => r.filter((row) => row >= 0).length));
  const inputRows = shownRows(rows.input);
  const inputTop = HEADER_H + LABEL_H;
  const workLabel = inputTop + inputRows * (CELL_H + CELL_GAP) + 8;
  const workTop = workLabel + LABEL_H;
  const workRows = shownRows(rows.work);
  const height = workTop + workRows * (CELL_H + CELL_GAP) + 40;
  const cell = (rank: number, buffer: 'input' | 'work', slot: number) => ({
    x: columnX(rank) + 6,
    y: (buffer === 'input' ? inputTop : workTop) + Math.max(0, rows[buffer][rank][slot]) * (CELL_H + CELL_GAP),
    w: COL_W - 12,
    h: CELL_H,
  });
  const shown = (rank: number, buffer: 'input' | 'work', slot: number) => rows[buffer][rank][slot] >= 0;
  return { inputTop, workLabel, workTop, height, cell, shown, outputY: workTop + workRows * (CELL_H + CELL_GAP) + 14 };
}

const compact = (values: Scalar[], max = 20) => {
  const text = values.map(formatScalar).join(', ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text || '(empty)';
};

/** What a slot holds, as text: its values where known, else which chunk of which rank (and its elements). */
function slotText(model: LearnModel, content: SlotContent): string {
  if (content.length === 0) return '';
  const values = slotValues(model.schedule, model.inputs, content, model.reduce);
  if (values) return compact(values);
  const p = content[0];
  const [start, end] = chunkRange(model.inputLengths[p.rank], model.schedule.inputChunks[p.rank], p.chunk);
  const where = `[${start}…${end})`;
  return content.length === 1 ? `r${p.rank}·c${p.chunk} ${where}` : `${content.length} ranks' c${p.chunk} ${where}`;
}

function contributors(model: LearnModel, content: SlotContent): string {
  const names = content.map((p) => `r${p.rank}`);
  if (content.length < 2) return '';
  const join = REDOP_JOIN[model.redop ?? 'sum'];
  return join ? names.join(join.trim()) : `${model.redop}(${names.join(',')})`;
}

function Cell({
  x,
  y,
  w,
  h,
  content,
  model,
  dashed,
  testId,
}: {
  x: number;
  y: number;
  w: number;
  h: number;
  content: SlotContent;
  model: LearnModel;
  dashed: boolean;
  testId: string;
}) {
  const single = content.length === 1 ? rankColour(content[0].rank) : null;
  // Translucent over the column's background, so the cell's text reads in either theme.
  const fill = content.length === 0 ? 'var(--panel)' : single ? `${single}22` : '#7c3aed22';
  return (
    <g data-testid={testId}>
      <rect
        x={x}
        y={y}
        width={w}
        height={h}
        rx={4}
        style={{ fill }}
        stroke={single ?? (content.length ? '#7c3aed' : '#94a3b8')}
        strokeDasharray={dashed ? '4 3' : undefined}
      />
      {content.map((p: Piece, i) => (
        <rect key={i} x={x + 3 + i * 7} y={y + 3} width={5} height={5} fill={rankColour(p.rank)} />
      ))}
      <text x={x + w / 2} y={y + (content.length > 1 ? 16 : 19)} textAnchor="middle" className="learn-cell-text">
        {slotText(model, content)}
      </text>
      {content.length > 1 && (
        <text x={x + w / 2} y={y + 27} textAnchor="middle" className="learn-cell-note">
          {contributors(model, content)}
        </text>
      )}
    </g>
  );
}

function transferPath(from: { x: number; y: number; w: number; h: number }, to: { x: number; y: number; w: number; h: number }) {
  const a = { x: from.x + from.w / 2, y: from.y + from.h / 2 };
  const b = { x: to.x + to.w / 2, y: to.y + to.h / 2 };
  const lift = 24 + Math.abs(b.x - a.x) / 8;
  const c = { x: (a.x + b.x) / 2, y: Math.min(a.y, b.y) - lift };
  return { a, b, c, d: `M ${a.x} ${a.y} Q ${c.x} ${c.y} ${b.x} ${b.y}` };
}

const along = ({ a, b, c }: { a: { x: number; y: number }; b: { x: number; y: number }; c: { x: number; y: number } }, f: number) => ({
  x: (1 - f) ** 2 * a.x + 2 * (1 - f) * f * c.x + f ** 2 * b.x,
  y: (1 - f) ** 2 * a.y + 2 * (1 - f) * f * c.y + f ** 2 * b.y,
});

export function MovesDiagram({ model, t, hideOutcome }: Props) {
  const { schedule } = model;
  const world = schedule.world;
  const stages = schedule.stages.length;
  const k = Math.min(Math.floor(t), stages);
  const fraction = t - k;
  const state = model.states[hideOutcome ? 0 : k];
  const stage = k < stages && !hideOutcome ? schedule.stages[k] : null;
  const L = useMemo(() => layout(model), [model]);
  const width = diagramWidth(world);
  const done = !hideOutcome && k === stages;
  // The buffers change once per stage, the travelling chunks every frame: only the latter are drawn per frame.
  const columns = useMemo(
    () =>
      Array.from({ length: world }, (_, rank) => {
        const x = columnX(rank);
        const a = model.planStep.action;
        const root = a.kind === 'collective' && COLLECTIVE_DESCRIPTORS[a.op].rooted && a.root === rank;
        const outputs = new Set(schedule.output[rank]);
        const computed = model.computed[rank];
        const agrees = model.agrees[rank];
        return (
          <g key={rank} data-testid="learn-column" data-rank={rank}>
            <text x={x + COL_W / 2} y={17} textAnchor="middle" className="learn-rank" fill={rankColour(rank)}>
              rank {rank}
              {root ? ' · root' : ''}
              {model.disagreeing.includes(rank) ? ' ⚠' : ''}
            </text>
            <text x={x + 8} y={L.inputTop - 5} className="learn-label">
              input{schedule.inputChunks[rank] ? '' : ': none'}
            </text>
            <g data-testid="learn-input" data-values={model.inputs[rank] ? model.inputs[rank]!.map(formatScalar).join(', ') : ''}>
              {Array.from({ length: schedule.inputChunks[rank] }, (_, j) => {
                if (!L.shown(rank, 'input', j)) return null;
                const c = L.cell(rank, 'input', j);
                return <Cell key={j} {...c} content={[{ rank, chunk: j }]} model={model} dashed={false} testId="learn-input-chunk" />;
              })}
            </g>
            <text x={x + 8} y={L.workTop - 5} className="learn-label">
              {schedule.workSlots[rank] ? 'output buffer' : 'no output buffer'}
            </text>
            {state[rank].map((content, j) => {
              if (!L.shown(rank, 'work', j)) return null;
              const c = L.cell(rank, 'work', j);
              return <Cell key={j} {...c} content={content} model={model} dashed={!outputs.has(j)} testId="learn-slot" />;
            })}
            <text
              x={x + 8}
              y={L.outputY}
              className="learn-output"
              data-testid="learn-output"
              data-agrees={agrees === null ? '' : String(agrees)}
            >
              {schedule.output[rank].length === 0
                ? 'no output on this rank'
                : hideOutcome
                  ? 'output: ? (predict it)'
                  : computed
                    ? `${done ? 'output' : 'will be'} [${compact(computed, 14)}]${done && agrees !== null ? (agrees ? ' ✓' : ' ✗') : ''}`
                    : 'output: too long to show'}
            </text>
          </g>
        );
      }),
    [model, state, hideOutcome, done, L, world],
  );
  return (
    <svg
      className="learn-diagram"
      data-testid="learn-diagram"
      data-stage={k}
      width={width}
      height={L.height}
      viewBox={`0 0 ${width} ${L.height}`}
    >
      <defs>
        <marker id="learn-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#64748b" />
        </marker>
      </defs>
      {Array.from({ length: world }, (_, rank) => (
        <rect key={rank} x={columnX(rank)} y={0} width={COL_W} height={L.height - 4} rx={6} className="learn-column-bg" />
      ))}
      {columns}
      {stage &&
        stage.transfers
          .filter((tr) => carriesElements(model, sentContent(state, tr)))
          .map((tr, i) => {
            const from = L.cell(tr.from, tr.source, tr.fromSlot);
            const to = L.cell(tr.to, 'work', tr.toSlot);
            const path = transferPath(from, to);
            const content = sentContent(state, tr);
            const at = along(path, fraction);
            return (
              <g key={i} data-testid="learn-transfer">
                {/* Half transparent, so that the values under a path stay readable. */}
                <path
                  d={path.d}
                  fill="none"
                  stroke="#475569"
                  strokeOpacity={0.6}
                  strokeWidth={1.5}
                  strokeDasharray={fraction > 0 ? undefined : '5 4'}
                  markerEnd="url(#learn-arrow)"
                />
                {tr.combine === 'reduce' && (
                  <text x={to.x + to.w - 10} y={to.y - 3} className="learn-reduce-mark">
                    {model.redop === 'prod' ? '×' : model.redop === 'min' || model.redop === 'max' ? model.redop : '+'}
                  </text>
                )}
                {fraction > 0 && content.length > 0 && (
                  <g transform={`translate(${at.x - 34}, ${at.y - 10})`}>
                    <rect width={68} height={20} rx={10} fill={content.length === 1 ? rankColour(content[0].rank) : '#7c3aed'} />
                    <text x={34} y={14} textAnchor="middle" className="learn-packet">
                      {slotText(model, content).slice(0, 10)}
                    </text>
                  </g>
                )}
              </g>
            );
          })}
    </svg>
  );
}
