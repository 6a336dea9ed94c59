// What the lab offers this window: the machine (backends, GPUs, rank limits) and the templates.
// Asked again after a reconnect, since the server may have restarted.
import { useEffect, useState } from 'react';
import type { MachineInfo, Template } from '../../../shared/run/api/api.js';
import type { ConnectionState, LabClient } from '../client';

export interface LabInfo {
  connection: ConnectionState;
  machine: MachineInfo | null;
  templates: Template[];
  error: string | null;
}

export function useLabInfo(client: LabClient): LabInfo {
  const [connection, setConnection] = useState<ConnectionState>('connecting');
  const [machine, setMachine] = useState<MachineInfo | null>(null);
  const [templates, setTemplates] = useState<Template[]>([]);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => client.onConnection(setConnection), [client]);

  useEffect(() => {
    if (connection !== 'open') return;
    let current = true;
    Promise.all([client.call('machine', {}), client.call('templates', {})]).then(
      ([m, t]) => {
        if (!current) return;
        setMachine(m);
        setTemplates(t);
        setError(null);
      },
      (e: Error) => {
        if (current) setError(`Could not reach the lab: ${e.message}`);
      },
    );
    return () => {
      current = false;
    };
  }, [client, connection]);

  return { connection, machine, templates, error };
}
