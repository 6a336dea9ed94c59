// Saved run records; opening one shows its results without running anything (replay). Two
// picked runs can be compared here, below the list.
import { useEffect, useState } from 'react';
import type { SavedRun } from '../../../shared/run/api.js';
import { compareRuns, type RunComparison } from '../../../shared/export/index.js';
import type { LabClient } from '../client';
import { RunComparisonView } from './RunComparisonView';

interface Props {
  client: LabClient;
  /** Changes when the list may have changed (a run ended). */
  refreshKey: number;
  onOpen(path: string): void;
}

type Comparing =
  { state: 'loading' } | { state: 'shown'; comparison: RunComparison; names: [string, string] } | { state: 'failed'; message: string };

/** Opens both runs and compares the older (A) with the newer (B). */
async function compareSaved(client: LabClient, picked: SavedRun[]): Promise<Comparing> {
  const opened = await Promise.all(picked.map(async (run) => ({ run, record: await client.call('openRun', { path: run.path }) })));
  const [a, b] = opened.sort((x, y) => Date.parse(x.record.createdAt) - Date.parse(y.record.createdAt));
  return { state: 'shown', comparison: compareRuns(a.record, b.record), names: [a.run.name, b.run.name] };
}

export function SavedRuns({ client, refreshKey, onOpen }: Props) {
  const [runs, setRuns] = useState<SavedRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [picked, setPicked] = useState<string[]>([]);
  const [comparing, setComparing] = useState<Comparing | null>(null);
  useEffect(() => {
    let current = true;
    client.call('listRuns', {}).then(
      (list) => {
        if (current) {
          setRuns(list);
          setError(null);
        }
      },
      (e: Error) => {
        if (current) setError(e.message);
      },
    );
    return () => {
      current = false;
    };
  }, [client, refreshKey]);
  if (error)
    return (
      <p className="failed" role="alert">
        Could not list the saved runs: {error}
      </p>
    );
  if (!runs) return <p className="empty">Loading…</p>;
  if (!runs.length)
    return (
      <p className="empty" data-testid="saved-runs-empty">
        No saved runs yet.
      </p>
    );

  const pickedRuns = runs.filter((r) => picked.includes(r.path));
  // Picking a third run lets go of the first one picked, so two stay picked.
  const toggle = (path: string) => setPicked((p) => (p.includes(path) ? p.filter((x) => x !== path) : [...p, path].slice(-2)));
  const compare = () => {
    setComparing({ state: 'loading' });
    compareSaved(client, pickedRuns).then(setComparing, (e: Error) => setComparing({ state: 'failed', message: e.message }));
  };
  return (
    <>
      <table className="saved-runs" data-testid="saved-runs">
        <thead>
          <tr>
            <th title="Pick two runs to compare">compare</th>
            <th className="left">name</th>
            <th className="left">created</th>
            <th>status</th>
            <th>ranks</th>
            <th>backend</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.path} data-testid="saved-run">
              <td>
                <input
                  type="checkbox"
                  data-testid="compare-pick"
                  aria-label={`compare ${run.name}`}
                  checked={picked.includes(run.path)}
                  onChange={() => toggle(run.path)}
                />
              </td>
              <td className="left" title={run.path}>
                {run.name}
              </td>
              <td className="left">{new Date(run.createdAt).toLocaleString()}</td>
              <td className={run.status === 'passed' ? 'passed' : 'failed'}>{run.status}</td>
              <td>{run.world}</td>
              <td>{run.backend}</td>
              <td>
                <button type="button" data-testid="open-run" onClick={() => onOpen(run.path)}>
                  Open
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="compare-bar">
        <button
          type="button"
          data-testid="compare-runs"
          disabled={pickedRuns.length !== 2 || comparing?.state === 'loading'}
          onClick={compare}
        >
          Compare
        </button>{' '}
        <span className="dim">
          {pickedRuns.length === 2 ? 'the older run is A, the newer B' : `pick two runs to compare (${pickedRuns.length} picked)`}
        </span>
      </p>
      {comparing?.state === 'loading' && <p className="empty">Opening both runs…</p>}
      {comparing?.state === 'failed' && (
        <p className="failed" role="alert">
          Could not compare the runs: {comparing.message}
        </p>
      )}
      {comparing?.state === 'shown' && <RunComparisonView comparison={comparing.comparison} names={comparing.names} />}
    </>
  );
}
