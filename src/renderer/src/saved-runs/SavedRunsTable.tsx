// The saved runs' table: sortable columns, a pick for comparing, Open, and Delete (asked once
// more in the row before anything is removed).
import { useState } from 'react';
import { shownStatus } from '../../../shared/results/expectation.js';
import type { SavedRun } from '../../../shared/run/api/api.js';
import { formatDuration, importedMark, runDuration, runFileName, type RunSort, type SortKey } from './list';
import { MAX_RECORD_BYTES, recordTooLargeMessage } from '../../../shared/run/record/record-text.js';
import { formatBytes } from '../../../shared/data/units.js';

interface Props {
  runs: SavedRun[];
  sort: RunSort;
  onSort(key: SortKey): void;
  picked: string[];
  onPick(path: string): void;
  onOpen(path: string): void;
  /** The pointer or the focus is on a run's Open button: it may be opened soon. */
  onPrepare(path: string): void;
  onDelete(run: SavedRun): void;
  /** The run whose file is being deleted now. */
  deleting: string | null;
}

export const showDate = (iso: string): string => new Date(iso).toLocaleString();

function SortHeader({
  label,
  column,
  sort,
  onSort,
  left,
}: {
  label: string;
  column: SortKey;
  sort: RunSort;
  onSort(key: SortKey): void;
  left?: boolean;
}) {
  const active = sort.key === column;
  return (
    <th className={left ? 'left' : undefined} aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="sort" data-testid={`sort-${column}`} onClick={() => onSort(column)} title={`Sort by ${label}`}>
        {label}
        {active ? (sort.descending ? ' ▼' : ' ▲') : ''}
      </button>
    </th>
  );
}

/** A run's status as its run's line says it: a run meant to fail that did reads passed, and says so. */
function RunStatusCell({ run }: { run: SavedRun }) {
  const status = shownStatus(run);
  if (run.partial)
    return (
      <td className="dim" title={PARTIAL} data-testid="run-status-cell">
        {status} <span className="expected-note">(summary not read)</span>
      </td>
    );
  return (
    <td className={status === 'passed' ? 'passed' : 'failed'} title={run.expectation?.note} data-testid="run-status-cell">
      {status}
      {run.expectation?.met && <span className="expected-note"> (expected failure)</span>}
    </td>
  );
}

const PARTIAL =
  "This record's summary is not at the head of its file (an older record) and it is too large to read whole for a listing, or it is broken: shown with what its head and the file tell. Open reads it.";

const IMPORTED =
  'Read in by clab import: measured elsewhere, not run by the lab. No values were checked by the lab and there is no timeline.';

/** A record larger than the lab opens: listed, and said so beside its name (Open refuses it, saying the bound). */
const tooLarge = (run: SavedRun) =>
  run.bytes !== undefined && run.bytes > MAX_RECORD_BYTES ? recordTooLargeMessage(runFileName(run), run.bytes) : null;

export function SavedRunsTable({ runs, sort, onSort, picked, onPick, onOpen, onPrepare, onDelete, deleting }: Props) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const header = { sort, onSort };
  return (
    <table className="saved-runs" data-testid="saved-runs">
      <thead>
        <tr>
          <th title="Pick two runs to compare">compare</th>
          <SortHeader label="name" column="name" left {...header} />
          <SortHeader label="created" column="date" left {...header} />
          <SortHeader label="duration" column="duration" {...header} />
          <SortHeader label="status" column="status" {...header} />
          <th>ranks</th>
          <th>backend</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.path} data-testid="saved-run" data-partial={run.partial ? 'true' : undefined}>
            <td>
              <input
                type="checkbox"
                data-testid="compare-pick"
                aria-label={`compare ${run.name}`}
                checked={picked.includes(run.path)}
                onChange={() => onPick(run.path)}
              />
            </td>
            <td className="left run-name" title={run.path}>
              {run.name}
              {run.imported && (
                <span className="expected-note" data-testid="run-imported" title={IMPORTED}>
                  {' '}
                  ({importedMark(run.imported)})
                </span>
              )}
              {tooLarge(run) && (
                <span className="expected-note" data-testid="run-too-large" title={tooLarge(run)!}>
                  {' '}
                  ({formatBytes(run.bytes!)}: too large to open)
                </span>
              )}
            </td>
            <td className="left">{showDate(run.createdAt)}</td>
            <td data-testid="run-duration">{formatDuration(runDuration(run))}</td>
            <RunStatusCell run={run} />
            <td>{run.world ?? '?'}</td>
            <td>{run.backend ?? '?'}</td>
            <td className="run-actions">
              {confirming === run.path ? (
                <span
                  className="confirm-delete"
                  role="group"
                  title="Delete this run's file from the runs folder"
                  aria-label={`delete ${run.name}`}
                >
                  delete?{' '}
                  <button
                    type="button"
                    className="small danger"
                    data-testid="confirm-delete"
                    disabled={deleting === run.path}
                    onClick={() => onDelete(run)}
                  >
                    Delete
                  </button>{' '}
                  <button type="button" className="small" data-testid="cancel-delete" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </span>
              ) : (
                <>
                  <button
                    type="button"
                    className="small"
                    data-testid="open-run"
                    onClick={() => onOpen(run.path)}
                    onPointerEnter={() => onPrepare(run.path)}
                    onFocus={() => onPrepare(run.path)}
                  >
                    Open
                  </button>{' '}
                  <button
                    type="button"
                    className="small"
                    data-testid="delete-run"
                    title="Delete this run's file from the runs folder"
                    onClick={() => setConfirming(run.path)}
                  >
                    Delete…
                  </button>
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
