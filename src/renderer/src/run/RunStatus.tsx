// One line on where the run stands, and a clear message when it was refused or failed.
import { runSucceeded } from '../../../shared/results/expectation.js';
import { statusLine } from '../../../shared/export/format.js';
import type { RunPhase } from './useRun';

export function RunStatus({ phase, onShowResults }: { phase: RunPhase; onShowResults(): void }) {
  switch (phase.kind) {
    case 'idle':
      return (
        <p className="run-status" data-testid="run-status">
          Ready. Ctrl+Enter runs the scenario.
        </p>
      );
    case 'starting':
      return (
        <p className="run-status" data-testid="run-status">
          Starting…
        </p>
      );
    case 'running':
      return (
        <p className="run-status running" data-testid="run-status">
          {phase.stopping ? 'Stopping…' : 'Running…'}
        </p>
      );
    case 'refused':
      return (
        <p className="run-status failed" data-testid="run-status">
          Refused: the scenario has problems.
        </p>
      );
    case 'not-started':
      return (
        <p className="run-status failed" data-testid="run-status">
          Could not start the run: {phase.message}
        </p>
      );
    case 'ended': {
      const { record, savedTo } = phase;
      const error = record.error;
      return (
        <div className={`run-status ${runSucceeded(record) ? 'passed' : 'failed'}`} data-testid="run-status">
          <p>
            <span className="status-text" data-testid="run-status-line">
              {statusLine(record)}
            </span>{' '}
            <button type="button" className="link" data-testid="show-results" onClick={onShowResults}>
              Show results
            </button>
          </p>
          {error && (
            // The status line already ends with the message; this says where and which code.
            <p className="run-error" data-testid="run-error">
              {[
                error.rank !== null ? `rank ${error.rank}` : null,
                error.step !== null ? `step ${error.step}${error.stepLabel ? ` (${error.stepLabel})` : ''}` : null,
                error.code,
              ]
                .filter(Boolean)
                .join(' · ')}
            </p>
          )}
          {savedTo && (
            <p className="saved-to">
              Run record: <code>{savedTo}</code>
            </p>
          )}
        </div>
      );
    }
  }
}
