// The NCCL A/Bs of the runs folder (*.nccl-ab.json), beside the saved runs: marked as A/Bs, each
// with its two libraries and Open (the A/B in the compare view); a file that cannot be read is
// listed with why.
import type { SavedAb } from '../../../shared/run/api/api.js';
import { abLibraryVersion } from '../../../shared/results/nccl-ab.js';
import { runFileName } from './list';
import { showDate } from './SavedRunsTable';

interface Props {
  abs: SavedAb[];
  onOpen(ab: SavedAb): void;
  /** Something is being opened below the list: Open waits for it. */
  busy: boolean;
}

export function SavedAbsTable({ abs, onOpen, busy }: Props) {
  return (
    <table className="saved-runs" data-testid="saved-abs" aria-label="NCCL A/Bs">
      <thead>
        <tr>
          <th className="left">kind</th>
          <th className="left">scenario</th>
          <th className="left">created</th>
          <th>repeats</th>
          <th className="left">A</th>
          <th className="left">B</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {abs.map((ab) => (
          <tr key={ab.path} data-testid="saved-ab">
            <td className="left">
              <span className="ab-badge">NCCL A/B</span>
            </td>
            {ab.ok ? (
              <>
                <td className="left run-name" title={ab.path}>
                  {ab.scenario}
                </td>
                <td className="left">{showDate(ab.createdAt)}</td>
                <td>{ab.repeats}</td>
                <td className="left" title={ab.libraries.A.path}>
                  {abLibraryVersion(ab.libraries.A)}
                </td>
                <td className="left" title={ab.libraries.B.path}>
                  {abLibraryVersion(ab.libraries.B)}
                </td>
              </>
            ) : (
              <td className="left failed" colSpan={5} title={ab.path} data-testid="saved-ab-problem">
                {ab.problem}
              </td>
            )}
            <td className="run-actions">
              <button
                type="button"
                className="small"
                data-testid="open-ab"
                aria-label={`open the A/B ${runFileName({ path: ab.path })}`}
                disabled={busy}
                onClick={() => onOpen(ab)}
              >
                Open
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
