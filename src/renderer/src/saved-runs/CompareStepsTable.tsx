// The steps table both comparisons open with (two saved runs; an NCCL A/B's two sides): step, op and
// size, then the columns each adds; or, where the two have no step in common, one line saying so.
import type { ReactNode } from 'react';
import { formatBytes, formatMicroseconds } from '../ui/units';

export const timeText = (x: number | null) => (x === null ? 'n/a' : formatMicroseconds(x));

/** A column for one side, its unit under its name. */
export function SideHeader({ name, unit }: { name: string; unit: string }) {
  return (
    <th>
      {name}
      <br />
      <span className="unit">({unit})</span>
    </th>
  );
}

/** The cells a row opens with: the step's name, its op and its size. */
export function StepCells({ name, op, bytes }: { name: string; op: string; bytes: number }) {
  return (
    <>
      <td className="left">{name}</td>
      <td className="left">{op}</td>
      <td>{formatBytes(bytes)}</td>
    </>
  );
}

interface Props<Step> {
  testId: string;
  /** What is compared, as the empty line names it: "runs", "sides". */
  what: string;
  /** The steps the two have in common (none: the empty line instead of the table). */
  steps: readonly Step[];
  /** The header cells after step, op and size. */
  columns: ReactNode;
  /** A step's row. */
  Row(props: { step: Step }): ReactNode;
  /** A line under the table (none where there is no table). */
  note?: ReactNode;
}

export function CompareStepsTable<Step>({ testId, what, steps, columns, Row, note }: Props<Step>) {
  if (!steps.length) return <p className="empty">The two {what} have no step in common (matched by label, op and size).</p>;
  return (
    <>
      <table className="step-table compare-table" data-testid={testId}>
        <thead>
          <tr>
            <th className="left">step</th>
            <th className="left">op</th>
            <th>size</th>
            {columns}
          </tr>
        </thead>
        <tbody>
          {steps.map((step, i) => (
            <Row key={i} step={step} />
          ))}
        </tbody>
      </table>
      {note}
    </>
  );
}
