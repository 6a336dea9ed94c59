// The title bar: which machine the lab runs on, the file actions, and whether this window is
// connected to the lab.
import type { ReactNode } from 'react';
import type { MachineInfo } from '../../../shared/run/api/api.js';
import type { ConnectionState } from '../client';
import { gpuSummary, machineTitle } from './machine-text';

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  open: 'connected',
  closed: 'disconnected, reconnecting…',
};

interface Props {
  machine: MachineInfo | null;
  connection: ConnectionState;
  children: ReactNode;
}

export function Header({ machine, connection, children }: Props) {
  return (
    <header className="app-header">
      <h1>Collective Lab</h1>
      {machine && (
        <span className="machine" data-testid="machine" title={machineTitle(machine)}>
          {machine.host} · {machine.cpus} CPUs · {gpuSummary(machine)}
        </span>
      )}
      <span className="spacer" />
      {children}
      <span className={`connection connection-${connection}`} data-testid="connection">
        {CONNECTION_TEXT[connection]}
      </span>
    </header>
  );
}
