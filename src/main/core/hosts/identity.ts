// Which host this process runs on: hostname and boot id name one running system (ranks that share
// memory need one), unless CLAB_HOST_ID names it for a test or a container.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { HostIdentity } from '../../../shared/run/hosts.js';

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

export function hostIdentity(env: NodeJS.ProcessEnv = process.env, override?: string): HostIdentity {
  const name = hostname();
  const boot = bootId();
  const given = override ?? env.CLAB_HOST_ID;
  return { id: given || `${name}/${boot}`, name: given || name, bootId: boot };
}
