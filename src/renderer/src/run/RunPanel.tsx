// Run controls: backend (with why one is unavailable), ranks, Run and Stop, progress, status; an NCCL A/B.
import type { MachineInfo, RunRequest } from '../../../shared/run/api/api.js';
import type { LabClient } from '../client';
import { AbSection } from './AbSection';
import { ProblemsList } from './ProblemsList';
import { RemoteSection } from './RemoteSection';
import { remoteProblem } from './request';
import { RunStatus } from './RunStatus';
import { useTimeLeft } from './useTimeLeft';
import { describeTimeLeft } from '../../../shared/results/time-left.js';
import { formatBandwidth } from '../ui/units';
import type { RunState } from './useRun';
import type { BackendChoice, RunSettings } from './useRunSettings';

interface Props {
  machine: MachineInfo | null;
  settings: RunSettings;
  state: RunState;
  scenarioWorld: number | null;
  canRun: boolean;
  onRun(): void;
  onStop(): void;
  /** Step mode: runs the step the run waits before. */
  onNext(): void;
  onReveal(line: number, column: number): void;
  onShowResults(): void;
  client: LabClient;
  /** The scenario as Run sends it, for an A/B (null: none open, or the lab out of reach). */
  abRequest: Pick<RunRequest, 'text' | 'file' | 'backend' | 'ranks'> | null;
  /** Opens an A/B file in Saved runs. */
  onOpenAb(path: string): void;
}

const BACKENDS: BackendChoice[] = ['auto', 'cpu', 'nccl'];

export function RunPanel(props: Props) {
  const { machine, settings, state, scenarioWorld, canRun, onRun, onStop, onNext, onReveal, onShowResults } = props;
  const { phase, done, total, paused } = state;
  const estimate = useTimeLeft(state);
  const running = phase.kind === 'running';
  const busy = running || phase.kind === 'starting';
  const unavailable = machine ? (['cpu', 'nccl'] as const).filter((b) => !machine.backends[b].available) : [];
  return (
    <section className="run-panel" aria-label="Run">
      <div className="run-controls">
        <label>
          Backend{' '}
          <select
            data-testid="backend"
            value={settings.backend}
            onChange={(e) => settings.setBackend(e.target.value as BackendChoice)}
            disabled={busy}
          >
            {BACKENDS.map((b) => {
              const availability = b === 'auto' ? null : machine?.backends[b];
              return (
                <option key={b} value={b} disabled={availability ? !availability.available : false} title={availability?.reason}>
                  {b}
                  {availability && !availability.available ? ' (unavailable)' : ''}
                </option>
              );
            })}
          </select>
        </label>
        <label>
          Ranks{' '}
          <select
            data-testid="ranks"
            value={settings.ranks ?? ''}
            onChange={(e) => settings.setRanks(e.target.value ? Number(e.target.value) : null)}
            disabled={busy}
          >
            <option value="">scenario{scenarioWorld !== null ? ` (${scenarioWorld})` : ''}</option>
            {settings.rankChoices.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {settings.backend !== 'cpu' && (
          <label title="The NCCL library the ranks load, a path on the lab's host (empty: CLAB_NCCL_LIBRARY, else the system's libnccl.so.2)">
            NCCL{' '}
            <input
              type="text"
              data-testid="nccl-library"
              placeholder="default libnccl.so.2"
              value={settings.nccl}
              onChange={(e) => settings.setNccl(e.target.value)}
              disabled={busy}
              spellCheck={false}
            />
          </label>
        )}
        <label title="Pause before each step, so you can predict its result; Next runs it">
          <input
            type="checkbox"
            data-testid="step-mode"
            checked={settings.stepMode}
            onChange={(e) => settings.setStepMode(e.target.checked)}
            disabled={busy}
          />{' '}
          step mode
        </label>
        <button
          type="button"
          className="primary"
          data-testid="run-button"
          onClick={onRun}
          disabled={busy || !canRun || remoteProblem(settings.remote) !== null}
          title="Run (Ctrl+Enter)"
        >
          ▶ Run
        </button>
        <button type="button" data-testid="stop-button" onClick={onStop} disabled={!running || phase.stopping}>
          ■ Stop
        </button>
        {settings.stepMode && (
          <button
            type="button"
            data-testid="next-button"
            onClick={onNext}
            disabled={!running || paused === null || phase.stopping}
            title="Run the step the run waits before"
          >
            Next ▶
          </button>
        )}
      </div>
      <RemoteSection remote={settings.remote} onChange={settings.setRemote} disabled={busy} />
      <AbSection client={props.client} request={props.abRequest} disabled={busy} onOpenAb={props.onOpenAb} />
      <div className="run-progress">
        <progress data-testid="progress" max={Math.max(total, 1)} value={done} />
        <span className="progress-text" data-testid="progress-text">
          {total ? `${done}/${total} steps` : ''}
        </span>
        {estimate && (
          <span className="progress-text" data-testid="time-left" data-basis={estimate.basis}>
            {describeTimeLeft(estimate)}
            {estimate.bytesPerSecond !== null && `, at ${formatBandwidth(estimate.bytesPerSecond / 1e9)} measured`}
          </span>
        )}
      </div>
      {unavailable.map((b) => (
        <p key={b} className="backend-note" data-testid={`backend-unavailable-${b}`}>
          {b} is unavailable: {machine!.backends[b].reason ?? 'no reason given'}
        </p>
      ))}
      {running && paused !== null && (
        <p className="run-paused" data-testid="run-paused">
          Waiting before step #{paused}: {state.live?.plan.steps[paused]?.label ?? ''} (Next runs it)
        </p>
      )}
      <RunStatus phase={phase} onShowResults={onShowResults} />
      {phase.kind === 'refused' && <ProblemsList problems={phase.problems} onReveal={onReveal} />}
    </section>
  );
}
