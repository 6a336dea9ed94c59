// `clab explain` as a user runs it: the built bundle.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COLLECTIVE_DESCRIPTORS } from '../../../src/shared/ops';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('clab explain', () => {
  it('prints an op\'s summary, what count means, its busbw factor and its teaching text', () => {
    const r = clab('explain', 'all_gather');
    expect(r.status).toBe(0);
    const d = COLLECTIVE_DESCRIPTORS.all_gather;
    expect(r.stdout).toContain(`all_gather: ${d.summary}`);
    expect(r.stdout).toContain(`  count   ${d.countMeans}`);
    expect(r.stdout).toContain('  busbw   algbw × 0.5 at 2 ranks, 0.75 at 4, 0.875 at 8');
    // The teaching text, wrapped: every word of it, in order, and no line past 96 columns.
    expect(r.stdout.split('\n\n')[2].split(/\s+/).filter(Boolean).join(' ')).toBe(d.teaching.split(/\s+/).join(' '));
    expect(Math.max(...r.stdout.split('\n').slice(4).map((l) => l.length))).toBeLessThanOrEqual(96);
  });

  it('lists every op with its summary when none is named, and prints JSON with --json', () => {
    const list = clab('explain');
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(`all_to_all_single       ${COLLECTIVE_DESCRIPTORS.all_to_all_single.summary}`);
    expect(list.stdout).toMatch(/^recv +One transfer between two ranks/m);
    const json = clab('explain', 'broadcast_object', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ op: 'broadcast_object', countMeans: null, busFactors: null });
  });

  it('refuses an unknown op with exit 2, listing the known ones', () => {
    const r = clab('explain', 'allreduce');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('clab: unknown operation "allreduce"; expected one of broadcast, all_reduce,');
  });
});
