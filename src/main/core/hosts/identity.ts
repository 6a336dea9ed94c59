// Which host this process runs on: hostname and boot id name one running system (ranks that share
// memory need one). For tests and containers, CLAB_HOST_ID (--host-id) gives another identity, and
// CLAB_HOST_NAME (--host-name) only another name in the record (e.g. a network namespace's).
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { HostIdentity } from '../../../shared/run/hosts/hosts.js';

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

export function hostIdentity(env: NodeJS.ProcessEnv = process.env, override: { id?: string; name?: string } = {}): HostIdentity {
  const boot = bootId();
  const id = override.id || env.CLAB_HOST_ID || `${hostname()}/${boot}`;
  const name = override.name || env.CLAB_HOST_NAME || override.id || env.CLAB_HOST_ID || hostname();
  return { id, name, bootId: boot };
}
