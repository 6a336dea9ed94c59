// `clab explain` as a user runs it: the built bundle, started as a process for the first op and
// the refusal, and run in this process (clab-here.ts) for the rest.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clabHere } from './clab-here';
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES } from '../../../src/shared/ops';
import { reference } from '../../shared/learn/reference.js';
import { LAUNCH_SUMMARY, LAUNCH_TEACHING } from '../../../src/shared/ops/launch';
import { INSIDE_NCCL_SUMMARY, INSIDE_NCCL_TEACHING } from '../../../src/shared/run/nccl/inside-nccl';

const clab = (...args: string[]) => spawnSync(process.execPath, ['bin/clab.cjs', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('clab explain', () => {
  it("prints an op's summary, what count means, its busbw factor and its teaching text", () => {
    const r = clab('explain', 'all_gather');
    expect(r.status).toBe(0);
    const d = COLLECTIVE_DESCRIPTORS.all_gather;
    expect(r.stdout).toContain(`all_gather: ${d.summary}`);
    expect(r.stdout).toContain(`  count   ${d.countMeans}`);
    expect(r.stdout).toContain('  busbw   algbw × 0.5 at 2 ranks, 0.75 at 4, 0.875 at 8');
    // The teaching text, wrapped: every word of it, in order, and no line past 96 columns.
    expect(r.stdout.split('\n\n')[2].split(/\s+/).filter(Boolean).join(' ')).toBe(d.teaching.split(/\s+/).join(' '));
    expect(
      Math.max(
        ...r.stdout
          .split('\n')
          .slice(4)
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(96);
  });

  it('lists every op with its summary when none is named, and prints JSON with --json', async () => {
    const list = await clabHere('explain');
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(`all_to_all_single       ${COLLECTIVE_DESCRIPTORS.all_to_all_single.summary}`);
    expect(list.stdout).toMatch(/^recv +One transfer between two ranks/m);
    const json = await clabHere('explain', 'broadcast_object', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ op: 'broadcast_object', countMeans: null, busFactors: null });
  });

  it('explains host- against graph-launched timing as a topic, lists it after the ops, and points to it from each op', async () => {
    const r = await clabHere('explain', 'launch');
    expect(r.status).toBe(0);
    // Every word of the summary and the lesson, paragraph by paragraph, wrapped to 96 columns.
    const words = (t: string) => t.split(/\s+/).filter(Boolean).join(' ');
    expect(r.stdout.trim().split('\n\n').map(words)).toEqual([`launch: ${LAUNCH_SUMMARY}`, ...LAUNCH_TEACHING].map(words));
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(96);
    expect(JSON.parse((await clabHere('explain', 'launch', '--json')).stdout)).toEqual({
      topic: 'launch',
      summary: LAUNCH_SUMMARY,
      teaching: LAUNCH_TEACHING,
    });
    const listed = (await clabHere('explain')).stdout.trim().split('\n').at(-1)!;
    expect(listed.split(/ {2,}/)).toEqual(['launch', LAUNCH_SUMMARY]);
    expect((await clabHere('explain', 'all_reduce')).stdout).toContain(
      '  launch  "host" (default) or "graph" (nccl): see `clab explain launch`',
    );
    expect((await clabHere('explain', 'lanuch')).stderr).toContain('did you mean launch?');
  });

  it('explains what the NCCL plug-ins show and how a scenario asks for them, as a topic listed before launch', async () => {
    const r = await clabHere('explain', 'inside-nccl');
    expect(r.status).toBe(0);
    const words = (t: string) => t.split(/\s+/).filter(Boolean).join(' ');
    expect(r.stdout.trim().split('\n\n').map(words)).toEqual([`inside-nccl: ${INSIDE_NCCL_SUMMARY}`, ...INSIDE_NCCL_TEACHING].map(words));
    expect(r.stdout).toContain('"insideNccl":');
    expect(r.stdout).toContain('CLAB_NCCL_PROFILER=0');
    expect(Math.max(...r.stdout.split('\n').map((l) => l.length))).toBeLessThanOrEqual(96);
    expect((await clabHere('explain')).stdout.trim().split('\n').at(-2)!.split(/ {2,}/)).toEqual(['inside-nccl', INSIDE_NCCL_SUMMARY]);
  });

  it('refuses an unknown op with exit 2, saying which one was meant and listing the known ones', () => {
    const r = clab('explain', 'allreduce');
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('clab: unknown operation "allreduce": did you mean all_reduce? (expected one of broadcast, all_reduce,');
    expect(clab('explain', 'frobnicate').stderr).toContain('clab: unknown operation "frobnicate"; expected one of broadcast, all_reduce,');
  });

  it("prints a worked example: every rank's input and output, wrapped to 96 columns", async () => {
    const r = await clabHere('explain', 'reduce', '--ranks', '3', '--count', '2', '--root', '2');
    expect(r.status).toBe(0);
    const example = r.stdout.split('\n\n').slice(3).join('\n\n');
    expect(example).toBe(
      [
        "  Worked example, reduce on 3 ranks, count 2, root 2: float32, rank r's element i is 10·r + i",
        '  (arange_rank, rankStride 10); reduced with sum.',
        '',
        '    rank 0  in   [0, 1]',
        '            out  nothing',
        '    rank 1  in   [10, 11]',
        '            out  nothing',
        '    rank 2  in   [20, 21]',
        '            out  [30, 33]',
        '',
      ].join('\n'),
    );
    const wide = await clabHere('explain', 'all_gather', '--ranks', '8');
    expect(
      Math.max(
        ...wide.stdout
          .split('\n\n')
          .slice(3)
          .join('\n')
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(96);
    expect(wide.stdout).toContain(
      '            out  [[0, 1, 2, 3], [10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33], [40, 41,\n                 42, 43], [50, 51',
    );
  });

  for (const op of COLLECTIVES) {
    it(`gives ${op} on 2 to 8 ranks the outputs the hand-written reference computes (--json)`, async () => {
      for (let world = 2; world <= 8; world++) {
        const root = COLLECTIVE_DESCRIPTORS[op].rooted ? world - 1 : 0;
        const r = await clabHere('explain', op, '--ranks', String(world), ...(root ? ['--root', String(root)] : []), '--json');
        expect(r.status, r.stderr).toBe(0);
        const { example } = JSON.parse(r.stdout);
        const stride = Number(/rankStride (\d+)/.exec(example.data)![1]);
        for (const rank of example.ranks) {
          const { input, output } = reference(op, world, example.count, root, stride, rank.rank);
          expect({ input: rank.input, output: rank.output }, `${op} on ${world} ranks, rank ${rank.rank}`).toEqual({ input, output });
        }
      }
    });
  }

  it('refuses worked-example numbers out of bounds with exit 2, saying what was expected', async () => {
    const cases: [string[], string][] = [
      [['broadcast', '--ranks', '4', '--root', '4'], 'clab: --root 4: expected a whole number from 0 to 3 (a rank of the 4-rank world)'],
      [['all_reduce', '--root', '1'], 'clab: --root 1: all_reduce has no root'],
      [
        ['all_gather', '--ranks', '64', '--count', '16'],
        'clab: --count 16 on 64 ranks: all_gather would give a rank a buffer of 1024 elements',
      ],
      [
        ['all_reduce', '--ranks', '65'],
        "error: option '--ranks <n>' argument '65' is invalid. expected a whole number of ranks from 1 to 64",
      ],
      [['all_reduce', '--count', 'x'], "error: option '--count <c>' argument 'x' is invalid. expected a whole number"],
    ];
    for (const [args, message] of cases) {
      const r = await clabHere('explain', ...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });
});
