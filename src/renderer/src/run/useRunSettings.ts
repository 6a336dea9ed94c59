// Where and how wide to run: the backend (unavailable ones cannot be picked) and the number of
// ranks each backend offers; null ranks keeps the scenario's world.
import { useCallback, useMemo, useState } from 'react';
import type { MachineInfo, RunRequest } from '../../../shared/run/api/api.js';
import { REMOTE_OFF, type RemoteFields } from './request';

export type BackendChoice = RunRequest['backend'];

export interface RunSettings {
  backend: BackendChoice;
  ranks: number | null;
  rankChoices: number[];
  /** Step mode: the run waits before each step until Next. */
  stepMode: boolean;
  setBackend(backend: BackendChoice): void;
  setRanks(ranks: number | null): void;
  setStepMode(on: boolean): void;
  /** Ranks from a launcher: the section's fields (kept while it is off). */
  remote: RemoteFields;
  setRemote(change: Partial<RemoteFields>): void;
  /** The NCCL library the ranks load, a path on the lab's host (empty: the lab's default). */
  nccl: string;
  setNccl(path: string): void;
}

export function maxRanks(machine: MachineInfo | null, backend: BackendChoice): number {
  if (!machine) return 1;
  const gpus = machine.gpus.length;
  if (backend === 'nccl') return Math.max(gpus, 1);
  if (backend === 'cpu') return machine.maxCpuRanks;
  return machine.backends.nccl.available && gpus > 0 ? gpus : machine.maxCpuRanks;
}

export function useRunSettings(machine: MachineInfo | null): RunSettings {
  const [backend, setBackend] = useState<BackendChoice>('auto');
  const [chosenRanks, setRanks] = useState<number | null>(null);
  const [stepMode, setStepMode] = useState(false);
  const [remote, setRemoteFields] = useState<RemoteFields>(REMOTE_OFF);
  const [nccl, setNccl] = useState('');
  const setRemote = useCallback((change: Partial<RemoteFields>) => setRemoteFields((r) => ({ ...r, ...change })), []);
  const rankChoices = useMemo(() => Array.from({ length: maxRanks(machine, backend) }, (_, i) => i + 1), [machine, backend]);
  // A choice the backend no longer offers falls back to the scenario's world.
  const ranks = chosenRanks !== null && chosenRanks <= rankChoices.length ? chosenRanks : null;
  return { backend, ranks, rankChoices, stepMode, setBackend, setRanks, setStepMode, remote, setRemote, nccl, setNccl };
}
