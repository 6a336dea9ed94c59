// Network namespaces as "hosts" on one machine: each its own veth pair to the root namespace and
// its own 10.x address; the core listens on the root side's address of the first. Root only.
import { spawnSync } from 'node:child_process';

export interface Namespace {
  name: string;
  veth: string;
  peer: string;
  rootAddress: string;
  address: string;
}

const ip = (...args: string[]) => {
  const r = spawnSync('ip', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim()}`);
};

/** `count` namespaces, 10.201.<i>.2 inside and 10.201.<i>.1 on the root side; each reaches the others' root sides. */
export function makeNamespaces(count: number): Namespace[] {
  const tag = String(process.pid % 100000);
  const made: Namespace[] = [];
  try {
    for (let i = 1; i <= count; i++) {
      const n: Namespace = {
        name: `clab${tag}n${i}`,
        veth: `vc${tag}r${i}`,
        peer: `vc${tag}n${i}`,
        rootAddress: `10.201.${i}.1`,
        address: `10.201.${i}.2`,
      };
      ip('netns', 'add', n.name);
      made.push(n);
      ip('link', 'add', n.veth, 'type', 'veth', 'peer', 'name', n.peer);
      ip('link', 'set', n.peer, 'netns', n.name);
      ip('addr', 'add', `${n.rootAddress}/24`, 'dev', n.veth);
      ip('link', 'set', n.veth, 'up');
      ip('-n', n.name, 'addr', 'add', `${n.address}/24`, 'dev', n.peer);
      ip('-n', n.name, 'link', 'set', n.peer, 'up');
      ip('-n', n.name, 'link', 'set', 'lo', 'up');
      ip('-n', n.name, 'route', 'add', 'default', 'via', n.rootAddress);
    }
  } catch (e) {
    removeNamespaces(made);
    throw e;
  }
  return made;
}

export function removeNamespaces(namespaces: Namespace[]): void {
  for (const n of namespaces) {
    spawnSync('ip', ['netns', 'del', n.name]);
    spawnSync('ip', ['link', 'del', n.veth]);
  }
}

/** Cuts the namespace's link: nothing more goes in or out, and nothing is closed. */
export const cutLink = (n: Namespace): void => ip('-n', n.name, 'link', 'set', n.peer, 'down');

/** Why namespaces cannot be made here, or null. */
export function namespacesUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'not root: network namespaces need root (CI runs as root)';
  if (spawnSync('ip', ['-V']).status !== 0) return '`ip` (iproute2) is missing';
  return null;
}
