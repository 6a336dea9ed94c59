// The title bar: which machine the lab runs on, the file actions, and whether this window is
// connected to the lab.
import type { ReactNode } from 'react';
import type { MachineInfo } from '../../../shared/api.js';
import type { ConnectionState } from '../client';

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  open: 'connected',
  closed: 'disconnected, reconnecting…',
};

interface Props { machine: MachineInfo | null; connection: ConnectionState; children: ReactNode }

export function Header({ machine, connection, children }: Props) {
  return (
    <header className="app-header">
      <h1>Collective Lab</h1>
      {machine && (
        <span className="machine" data-testid="machine">
          {machine.host} · {machine.cpus} CPUs · {machine.gpus.length ? `${machine.gpus.length} GPU${machine.gpus.length === 1 ? '' : 's'}` : 'no GPU'}
        </span>
      )}
      <span className="spacer" />
      {children}
      <span className={`connection connection-${connection}`} data-testid="connection">{CONNECTION_TEXT[connection]}</span>
    </header>
  );
}
