// Saved run records; opening one shows its results without running anything (replay).
import { useEffect, useState } from 'react';
import type { SavedRun } from '../../../shared/api.js';
import type { LabClient } from '../client';

interface Props {
  client: LabClient;
  /** Changes when the list may have changed (a run ended). */
  refreshKey: number;
  onOpen(path: string): void;
}

export function SavedRuns({ client, refreshKey, onOpen }: Props) {
  const [runs, setRuns] = useState<SavedRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    client.call('listRuns', {}).then(
      (list) => { if (current) { setRuns(list); setError(null); } },
      (e: Error) => { if (current) setError(e.message); },
    );
    return () => { current = false; };
  }, [client, refreshKey]);
  if (error) return <p className="failed" role="alert">Could not list the saved runs: {error}</p>;
  if (!runs) return <p className="empty">Loading…</p>;
  if (!runs.length) return <p className="empty" data-testid="saved-runs-empty">No saved runs yet.</p>;
  return (
    <table className="saved-runs" data-testid="saved-runs">
      <thead><tr><th className="left">name</th><th className="left">created</th><th>status</th><th>ranks</th><th>backend</th><th /></tr></thead>
      <tbody>
        {runs.map((run) => (
          <tr key={run.path} data-testid="saved-run">
            <td className="left" title={run.path}>{run.name}</td>
            <td className="left">{new Date(run.createdAt).toLocaleString()}</td>
            <td className={run.status === 'passed' ? 'passed' : 'failed'}>{run.status}</td>
            <td>{run.world}</td>
            <td>{run.backend}</td>
            <td><button type="button" data-testid="open-run" onClick={() => onOpen(run.path)}>Open</button></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
