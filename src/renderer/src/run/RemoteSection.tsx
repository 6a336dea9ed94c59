// "Ranks from a launcher": instead of forking the ranks here, the lab listens for `clab worker`s
// (started by a launcher given here, or by hand from the start lines the Log shows as the run waits).
import { useId, useState } from 'react';
import { DEFAULT_LISTEN, listenProblem, type RemoteFields } from './request';
import { TextField, textFieldsOf } from './TextField';

interface Props {
  remote: RemoteFields;
  onChange(change: Partial<RemoteFields>): void;
  disabled: boolean;
}

export function RemoteSection({ remote, onChange, disabled }: Props) {
  const id = useId();
  // Collapsed until opened; it stays as the learner leaves it (closing it keeps the fields and the choice).
  const [open, setOpen] = useState(false);
  const problem = remote.enabled ? listenProblem(remote.listen) : null;
  const off = disabled || !remote.enabled;
  const field = textFieldsOf(id, remote, onChange, off);
  return (
    <details className="run-remote" data-testid="remote-section" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary data-testid="remote-summary">Ranks from a launcher{remote.enabled ? ` (listening at ${remote.listen.trim()})` : ''}</summary>
      <div className="run-remote-body">
        <label>
          <input
            type="checkbox"
            data-testid="remote-enabled"
            checked={remote.enabled}
            onChange={(e) => onChange({ enabled: e.target.checked })}
            disabled={disabled}
            aria-describedby={`${id}-note`}
          />{' '}
          wait for <code>clab worker</code>s instead of starting the ranks here
        </label>
        <label htmlFor={`${id}-listen`}>Listen at</label>
        <input
          id={`${id}-listen`}
          data-testid="remote-listen"
          type="text"
          spellCheck={false}
          placeholder={DEFAULT_LISTEN}
          value={remote.listen}
          onChange={(e) => onChange({ listen: e.target.value })}
          disabled={off}
          aria-invalid={problem !== null}
          aria-describedby={problem ? `${id}-listen-problem` : undefined}
        />
        {problem && (
          <p id={`${id}-listen-problem`} className="run-remote-problem" role="alert" data-testid="remote-listen-problem">
            {problem}
          </p>
        )}
        <TextField {...field('launch')} label="Launcher (optional)" testId="remote-launch" placeholder="mpirun -np 4 -H a,b" />
        <TextField {...field('tokenFile')} label="Token file (optional)" testId="remote-token-file" placeholder="made for the run" />
        <p className="run-remote-note" id={`${id}-note`}>
          As the run waits, the Log shows the workers' start lines (<code>clab worker --connect … --token-file …</code>) and each rank as it
          joins. The lab listens on loopback only unless a host is named. A launcher, when given, is started here with that worker command
          after it.
        </p>
      </div>
    </details>
  );
}
