// Integration: `clab run --listen` with `clab worker`s started by a plain shell in network
// namespaces, each with its own address (4 "hosts" × 2 cpu ranks), and the faults: a cut link, a
// wrong token, an extra worker, a cpu worker from a second host. Needs root and iproute2 (CI has both).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runRecordSchema, type RunRecord } from '../../../../src/shared/run/record/record';
import { cutLink, makeNamespaces, namespacesUnavailable, removeNamespaces, type Namespace } from './netns';
import { alive, CLAB, endAll, pidsMentioning, start, tokenFile, waitFor, type Proc } from './processes';

const why = namespacesUnavailable();
if (why) console.warn(`skipping the network-namespace tests: ${why}`);

const PORT = 17_000 + (process.pid % 1000);
let spaces: Namespace[] = [];
let port = PORT;

beforeAll(() => {
  if (!why) spaces = makeNamespaces(4);
});
afterEach(() => endAll());
afterAll(() => {
  endAll();
  removeNamespaces(spaces);
});

/** The core on the first namespace's root-side address, a fresh port each time. */
function core(scenario: string, ranks: number, token: string, out: string, extra: string[] = []): Proc {
  port += 1;
  return start('node', [
    CLAB,
    'run',
    scenario,
    '--backend',
    'cpu',
    '--ranks',
    String(ranks),
    '--listen',
    `${spaces[0].rootAddress}:${port}`,
    '--token-file',
    token,
    '--out',
    out,
    ...extra,
  ]);
}

/** A worker in namespace `n`, started by a plain shell as a launcher would start it. */
function worker(n: Namespace, rank: number, world: number, token: string, env: NodeJS.ProcessEnv = {}): Proc {
  return start(
    'ip',
    [
      'netns',
      'exec',
      n.name,
      'node',
      CLAB,
      'worker',
      '--connect',
      `${spaces[0].rootAddress}:${port}`,
      '--token-file',
      token,
      '--rank',
      String(rank),
      '--world',
      String(world),
      '--local-rank',
      String(rank % 2),
    ],
    env,
  );
}

const record = (file: string): RunRecord => runRecordSchema.parse(JSON.parse(readFileSync(file, 'utf8')));

describe.skipIf(why)('ranks on 4 network namespaces', () => {
  it("all-in-one passes on 4 namespaces × 2 cpu ranks, the record lists the 4 hosts and every rank's events on one timeline", async () => {
    const { dir, file } = tokenFile();
    const out = join(dir, 'run.json');
    // all-in-one's split tensors have 12 elements (2, 3, 4 or 6 ranks): 24 for 8 ranks, nothing else changed.
    const scenario = join(dir, 'all-in-one-8.scenario.json');
    const allInOne = JSON.parse(readFileSync('scenarios/all-in-one.scenario.json', 'utf8')) as { steps: { count?: number }[] };
    for (const step of allInOne.steps) if (step.count === 12) step.count = 24;
    writeFileSync(scenario, JSON.stringify(allInOne));
    const c = core(scenario, 8, file, out);
    await waitFor(c, 'waiting for 8 ranks', 10_000);
    // One machine (same hostname and boot id: cpu ranks may share memory), named per namespace.
    const workers = spaces.flatMap((n, i) => [0, 1].map((j) => worker(n, 2 * i + j, 8, file, { CLAB_HOST_NAME: `ns${i + 1}` })));
    expect(await c.exited).toBe(0);
    expect(c.out).toContain('PASSED');
    expect(c.out).toMatch(/hosts: 4/);
    const r = record(out);
    expect(r.status).toBe('passed');
    expect(r.hosts?.map((h) => [h.name, h.address, h.ranks])).toEqual(spaces.map((n, i) => [`ns${i + 1}`, n.address, [2 * i, 2 * i + 1]]));
    expect(new Set(r.hosts!.map((h) => h.id)).size).toBe(1);
    for (const h of r.hosts!) expect(h.clock.samples).toBe(8);
    expect(new Set(r.events.map((e) => e.rank))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));
    expect(r.events.every((e, i) => i === 0 || e.startNs >= r.events[i - 1].startNs)).toBe(true);
    // Every rank's all_reduce of a step lies within the run, on the core's clock.
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual(Array(8).fill(0));
  });

  it("groups the pair matrix by host, and the trace names each rank's host and states the clock bound", async () => {
    const { dir, file } = tokenFile();
    const out = join(dir, 'run.json');
    const scenario = join(dir, 'pairs.scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        version: 1,
        name: 'pairs',
        world: { ranks: 4 },
        defaults: { warmup: 0, iters: 2 },
        steps: [{ op: 'pairs', bytes: '64KiB', latency: false, copy: false }],
      }),
    );
    const c = core(scenario, 4, file, out);
    await waitFor(c, 'waiting for 4 ranks', 10_000);
    // Ranks 0 and 2 on ns1, 1 and 3 on ns2: the matrix puts them host by host.
    for (const rank of [0, 1, 2, 3]) worker(spaces[rank % 2], rank, 4, file, { CLAB_HOST_NAME: `ns${(rank % 2) + 1}` });
    expect(await c.exited).toBe(0);
    expect(c.out).toMatch(/from \\ to +0 ns1 +2 ns1 +1 ns2 +3 ns2\n +0 ns1 +- /);
    expect(c.out).toMatch(/^ +3 ns2 .* -$/m);
    expect(c.out).toMatch(/# {3}0→1 {2}hosts/);
    const trace = join(dir, 'trace.json');
    const exported = start('node', [CLAB, 'export', out, '--format', 'chrome-trace', '-o', trace]);
    expect(await exported.exited).toBe(0);
    const t = JSON.parse(readFileSync(trace, 'utf8')) as {
      traceEvents: { name: string; pid: number; args: { name?: string } }[];
      otherData: { clock: { note: string; hosts: { name: string; errorNs: number }[] } };
    };
    expect(t.otherData.clock.note).toMatch(/line up across hosts within ±\d+\.\d{3} ms/);
    expect(t.otherData.clock.hosts.map((h) => h.name).sort()).toEqual(['ns1', 'ns2']);
    expect(t.traceEvents.find((e) => e.name === 'process_name' && e.pid === 1)?.args.name).toBe('rank 1 · ns2 · cpu');
  });

  it('refuses cpu workers from a second host with the reason, on both sides, and ends the wait naming who joined', async () => {
    const { dir, file } = tokenFile();
    const c = core('scenarios/all-in-one.scenario.json', 4, file, join(dir, 'run.json'), ['--join-timeout', '6']);
    await waitFor(c, 'waiting for 4 ranks', 10_000);
    const a = [worker(spaces[0], 0, 4, file, { CLAB_HOST_ID: 'host-a' }), worker(spaces[0], 1, 4, file, { CLAB_HOST_ID: 'host-a' })];
    await waitFor(c, '2 of 4 in', 10_000);
    const b = worker(spaces[1], 2, 4, file, { CLAB_HOST_ID: 'host-b' });
    expect(await b.exited).toBe(2);
    const reason =
      'cpu ranks share memory, so they must all run on one host: ranks 0, 1 are on host host-a (id host-a), rank 2 on host host-b (id host-b)';
    expect(b.err).toContain(reason);
    expect(c.err).toContain(reason);
    expect(await c.exited).toBe(1);
    expect(c.out).toContain('2 of 4 ranks did not join within 6 s: joined 0 (host host-a), 1 (host host-a); missing 2, 3');
    expect(await Promise.all(a.map((w) => w.exited))).toEqual([2, 2]);
  });

  it('a cut link ends the run naming the host, rank and step within the bound; a wrong token and a fifth worker are refused meanwhile', async () => {
    const { dir, file } = tokenFile();
    const { file: wrong } = tokenFile();
    const scenario = join(dir, 'long.scenario.json');
    const steps = [{ op: 'all_reduce', count: 65536, iters: 100000, warmup: 0, timeoutMs: 600000 }];
    writeFileSync(scenario, JSON.stringify({ version: 1, name: 'long', world: { ranks: 4 }, steps }));
    const out = join(dir, 'run.json');
    const c = core(scenario, 4, file, out, ['-v']);
    await waitFor(c, 'waiting for 4 ranks', 10_000);
    const workers = [0, 1].flatMap((h) => [0, 1].map((j) => worker(spaces[h], 2 * h + j, 4, file, { CLAB_HOST_NAME: `ns${h + 1}` })));
    await waitFor(c, /\[Rank 3\] joined the cpu communicator/, 20_000);
    const stranger = worker(spaces[2], 1, 4, wrong);
    expect(await stranger.exited).toBe(2);
    expect(stranger.err).toContain("did not prove it holds the run's token");
    expect(c.err).toMatch(/a connection from 10\.201\.3\.2:\d+ went during its handshake: it refused the core's proof/);
    const fifth = worker(spaces[2], 0, 4, file);
    expect(await fifth.exited).toBe(2);
    expect(fifth.err).toMatch(/rank 0 is taken \(by pid \d+ on host ns1\): the run has all its 4 ranks/);
    const cutAt = Date.now();
    cutLink(spaces[1]);
    expect(await c.exited).toBe(1);
    const took = Date.now() - cutAt;
    expect(took).toBeLessThan(9_000);
    const r = record(out);
    expect(r.error?.code).toBe('CLAB_HOST_LOST');
    expect(r.error?.message).toMatch(/^rank [23] on host ns2 was lost during step 0 \(all_reduce[^)]*\): nothing heard for \d+\.\d s/);
    expect(r.error?.step).toBe(0);
    // The workers behind the cut hear nothing either: they end their ranks and exit by themselves.
    // (3: the worker lost the core; 1: its rank failed first, its peers on the other host aborted.)
    const codes = await Promise.all(workers.map((w) => w.exited));
    for (const code of codes.slice(2)) expect([1, 3]).toContain(code);
    await new Promise((res) => setTimeout(res, 500));
    expect(pidsMentioning(dir).filter(alive)).toEqual([]);
  });
});
