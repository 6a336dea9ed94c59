// "NCCL A/B": the scenario once per library per repeat, the sides taking turns (startAb). The turns
// are listed as they end (ab-turn); at the end (ab-end) a button opens the A/B in Saved runs. The
// lab refuses one on the cpu backend in one line, said here as it says it.
import { useEffect, useId, useState } from 'react';
import type { RunRequest } from '../../../shared/run/api/api.js';
import type { LabClient } from '../client';
import { TextField, textFieldsOf } from './TextField';
import { AB_FIELDS, abFormProblem, abProgressWith, abTurnLine, scenarioBackend, type AbFields, type AbProgress } from './ab-form';

interface Props {
  client: LabClient;
  /** The scenario as Run would send it (null: none open). */
  request: Pick<RunRequest, 'text' | 'file' | 'backend' | 'ranks'> | null;
  /** A run is going, or the lab is out of reach. */
  disabled: boolean;
  /** Opens an A/B file in Saved runs. */
  onOpenAb(path: string): void;
}

type Phase =
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'going'; progress: AbProgress }
  /** The lab refused it: its lines (one, or the scenario's problems). */
  | { kind: 'refused'; lines: string[] };

export function AbSection({ client, request, disabled, onOpenAb }: Props) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [fields, setFields] = useState<AbFields>(AB_FIELDS);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const going = phase.kind === 'going' && phase.progress.end === null;
  const abId = phase.kind === 'going' ? phase.progress.abId : null;
  useEffect(() => {
    if (abId === null) return;
    return client.onEvent((event) =>
      setPhase((p) => (p.kind === 'going' ? { kind: 'going', progress: abProgressWith(p.progress, event) } : p)),
    );
  }, [client, abId]);

  const problem = abFormProblem(fields, request ? scenarioBackend(request.text) : null);
  const change = (c: Partial<AbFields>) => setFields((f) => ({ ...f, ...c }));
  const start = () => {
    if (!request || problem) return;
    setPhase({ kind: 'starting' });
    client.call('startAb', { ...request, nccl: [fields.libraryA.trim(), fields.libraryB.trim()], repeats: Number(fields.repeats) }).then(
      (r) =>
        setPhase(
          r.ok
            ? { kind: 'going', progress: { abId: r.abId, file: r.file, total: r.turns, turns: [], end: null } }
            : { kind: 'refused', lines: r.problems.map((p) => p.message) },
        ),
      (e: Error) => setPhase({ kind: 'refused', lines: [e.message] }),
    );
  };
  const stop = () => {
    if (abId) client.call('stopRun', { runId: abId }).catch(() => undefined);
  };
  const off = disabled || going || phase.kind === 'starting';
  const field = textFieldsOf(id, fields, change, off);
  return (
    <details className="run-remote" data-testid="ab-section" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>NCCL A/B: two libraries, turn by turn</summary>
      <div className="run-remote-body run-ab-body">
        <TextField {...field('libraryA')} label="NCCL A" testId="ab-library-a-input" placeholder="/path/to/A/libnccl.so.2" />
        <TextField {...field('libraryB')} label="NCCL B" testId="ab-library-b-input" placeholder="/path/to/B/libnccl.so.2" />
        <label htmlFor={`${id}-repeats`}>Repeats</label>
        <input
          id={`${id}-repeats`}
          data-testid="ab-repeats"
          type="number"
          min={1}
          max={50}
          value={fields.repeats}
          onChange={(e) => change({ repeats: e.target.value })}
          disabled={off}
        />
        <p className="run-remote-note" id={`${id}-why`} data-testid="ab-why">
          {problem ?? 'Runs the scenario once per library per repeat, the sides taking turns A B, B A, …'}
        </p>
        <p className="run-ab-buttons">
          <button
            type="button"
            data-testid="ab-start"
            onClick={start}
            disabled={off || problem !== null || request === null}
            aria-describedby={`${id}-why`}
          >
            Start A/B
          </button>{' '}
          {going && (
            <button type="button" data-testid="ab-stop" onClick={stop}>
              ■ Stop A/B
            </button>
          )}
        </p>
        <AbPhase phase={phase} onOpenAb={onOpenAb} />
      </div>
    </details>
  );
}

function AbPhase({ phase, onOpenAb }: { phase: Phase; onOpenAb(path: string): void }) {
  if (phase.kind === 'starting') return <p className="run-remote-note">Starting…</p>;
  if (phase.kind === 'refused')
    return (
      <div className="run-remote-problem" role="alert" data-testid="ab-refused">
        {phase.lines.map((line, i) => (
          <p key={i}>{line}</p>
        ))}
      </div>
    );
  if (phase.kind !== 'going') return null;
  const { progress } = phase;
  const { end } = progress;
  return (
    <div className="run-ab-progress" role="status">
      <ol className="run-ab-turns" data-testid="ab-turns">
        {progress.turns.map((turn) => (
          <li key={turn.done}>{abTurnLine(turn)}</li>
        ))}
      </ol>
      {!end && <p className="run-remote-note">{`${progress.turns.length}/${progress.total} turns…`}</p>}
      {end?.error && (
        <p className="run-remote-problem" data-testid="ab-refused">
          {end.error}
        </p>
      )}
      {end?.file && (
        <button type="button" data-testid="ab-open" onClick={() => onOpenAb(end.file!)}>
          Open the A/B in Saved runs
        </button>
      )}
    </div>
  );
}
