import { createContext, useContext, type ReactNode } from 'react';
import type { LabClient } from './lab-client';

const LabClientContext = createContext<LabClient | null>(null);

export function LabClientProvider({ client, children }: { client: LabClient; children: ReactNode }) {
  return <LabClientContext.Provider value={client}>{children}</LabClientContext.Provider>;
}

export function useLabClient(): LabClient {
  const client = useContext(LabClientContext);
  if (!client) throw new Error('useLabClient outside LabClientProvider');
  return client;
}
