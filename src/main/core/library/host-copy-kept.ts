// The host copy rate (machine/host-copy.ts) kept across processes, so that a `clab run` on cpu does
// not spend its start copying 256 MiB (0.1 s on an idle 2-core box, 0.4 s on a busy one) to find
// what the host's previous run found. Kept in ~/.clab/cache/host-copy.json (CLAB_HOME over ~/.clab)
// under the host as it is since it booted: its name, CPU model and count, memory and boot, so a
// reboot, a resized VM or another machine measures again. Anything unreadable is measured anew.
import { readFileSync } from 'node:fs';
import { cpus, hostname, totalmem, uptime } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../ground/atomic-file.js';
import { clabHome } from '../ground/clab-home.js';
import { hostCopyGBps, knownHostCopyGBps } from '../machine/host-copy.js';

/** Rates outside this are not a copy's (a file edited by hand): measured again. */
const PLAUSIBLE_GBPS = { min: 0.01, max: 10_000 };

export const defaultHostCopyFile = (): string => join(clabHome(), 'cache', 'host-copy.json');

/** This host since it booted: Linux's boot id, else the boot time to the minute. */
export function thisHostKey(): string {
  let boot: string;
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    boot = String(Math.round((Date.now() / 1000 - uptime()) / 60));
  }
  const cpu = cpus();
  return [hostname(), cpu[0]?.model ?? 'unknown cpu', cpu.length, totalmem(), boot].join('|');
}

function kept(file: string, key: string): number | null {
  try {
    const k = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; gbps?: unknown };
    const gbps = k.gbps;
    return k.key === key && typeof gbps === 'number' && gbps >= PLAUSIBLE_GBPS.min && gbps <= PLAUSIBLE_GBPS.max ? gbps : null;
  } catch {
    return null;
  }
}

/** The host's copy rate: the one kept for this host since it booted, else measured now and kept. */
export function keptHostCopyGBps(file: string = defaultHostCopyFile()): number {
  const key = thisHostKey();
  const known = kept(file, key);
  if (known !== null) {
    knownHostCopyGBps(known);
    return hostCopyGBps();
  }
  const gbps = hostCopyGBps();
  try {
    writeFileAtomic(file, `${JSON.stringify({ key, gbps, measuredAt: new Date().toISOString() })}\n`);
  } catch {
    // not kept: the next run measures again
  }
  return gbps;
}
