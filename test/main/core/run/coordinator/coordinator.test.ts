// The run's coordination as scripted message sequences, in-process: what real rank processes would
// say and when, and what the coordinator answers. The real-process cases (test/main/core/*.test.ts,
// run.test.ts) keep the ends the script cannot reach: processes ended, segments removed.
import { describe, expect, it } from 'vitest';
import { Script } from './script';

const allReduce = { op: 'all_reduce', dtype: 'float32', count: 3, redop: 'sum' } as const;

describe('a run that goes well', () => {
  it('starts every rank, records each step once every rank in it ended it, tells all to leave once all are done, and ends', () => {
    const s = new Script({
      world: { ranks: 3 },
      steps: [
        { op: 'all_reduce', count: 3 },
        { op: 'send', from: 0, to: 2, count: 2 },
      ],
    }).open();
    expect(s.sent('start')).toEqual(['start→0', 'start→1', 'start→2']);
    s.begin(0, 0, 1);
    s.begin(1, 0, 1);
    s.begin(2, 0, 1);
    s.end(0, 0, 2);
    s.end(1, 0, 2);
    expect(s.of('step-done')).toEqual([]);
    s.end(2, 0, 3);
    expect(s.of('step-done').map((e) => [e.record.index, e.done, e.total, e.events.length])).toEqual([[0, 1, 2, 3]]);
    // Rank 1 takes no part in the send: two results make that step.
    s.step(1, [0, 2], 4);
    expect(s.of('step-done').map((e) => e.record.index)).toEqual([0, 1]);
    for (const r of [0, 1]) s.done(r, 5);
    expect(s.sent('leave')).toEqual([]);
    s.done(2, 5);
    expect(s.sent('leave')).toEqual(['leave→0,1,2']);
    s.exited(0, {}, 6);
    s.exited(1, {}, 6);
    expect(s.of('end')).toEqual([]);
    s.exited(2, {}, 6);
    expect(s.of('end')).toHaveLength(1);
    const record = s.record();
    expect(record.status).toBe('passed');
    expect(record.error).toBeNull();
    expect(record.steps.map((x) => x.verdict)).toEqual(['pass', 'pass']);
    expect(record.events).toHaveLength(5);
    expect(record.logs[0].text).toBe('run scripted: 3 ranks on the cpu backend, 2 steps');
  });

  it("sends a pair's communicator id to the pair's other rank only, and the run's to every other rank", () => {
    const s = new Script({ world: { ranks: 4 }, steps: [{ op: 'pairs', bytes: 64, latency: false, copy: false }] }).open();
    const pair = s.core.plan.steps.find((x) => x.action.kind === 'pair' && x.action.from === 2 && x.action.to === 1)!;
    s.say(0, { type: 'unique-id', id: 'run' }, 1);
    s.say(1, { type: 'unique-id', id: 'pair', step: pair.index }, 1);
    expect(s.sent('comm-id')).toEqual(['comm-id→1,2,3', `comm-id ${pair.index}→2`]);
  });

  it('opens a gate once every rank is there, and keeps when it opened for the pair cells', () => {
    const s = new Script({ world: { ranks: 3 }, steps: [{ op: 'pairs', bytes: 64, latency: false, copy: false }] }).open();
    s.say(0, { type: 'gate', step: 0 }, 1);
    s.say(1, { type: 'gate', step: 0 }, 1);
    expect(s.sent('gate-open')).toEqual([]);
    s.say(2, { type: 'gate', step: 0 }, 2);
    expect(s.sent('gate-open')).toEqual(['gate-open 0→0,1,2']);
    s.step(0, [0, 1], 3);
    expect(s.record(false).steps[0].pair).toMatchObject({ transport: 'shared memory (cpu backend)', error: null });
  });
});

describe('a failing rank', () => {
  it('ends the run naming the rank, the step and the cause, aborts every rank, and gives the last calls once, at the end', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }).open();
    s.begin(0, 0, 1);
    s.begin(1, 0, 1);
    s.enter(0, 0, allReduce, 1);
    s.say(1, { type: 'failed', step: 0, code: 'CLAB_OUT_OF_MEMORY', message: 'rank 1: cannot allocate 16 bytes' }, 2);
    expect(s.of('failure').map((e) => e.error)).toEqual([
      {
        rank: 1,
        step: 0,
        stepLabel: 'all_reduce',
        code: 'CLAB_OUT_OF_MEMORY',
        message: 'rank 1 failed in step 0 (all_reduce): cannot allocate 16 bytes',
      },
    ]);
    expect(s.sent('abort')).toEqual(['abort→0,1']);
    expect(s.of('log').at(-1)!.line).toMatchObject({
      rank: 1,
      text: 'error: rank 1 failed in step 0 (all_reduce): cannot allocate 16 bytes',
    });
    // Rank 1's call is read after its failure: it is in the one list at the end.
    s.enter(1, 0, allReduce, 2);
    s.exited(0, { signal: 'SIGTERM', code: null }, 3);
    s.exited(1, { code: 1 }, 3);
    expect(s.core.error!.message).toBe(
      'rank 1 failed in step 0 (all_reduce): cannot allocate 16 bytes [last calls entered: rank 0 all_reduce(sum, 3 × float32 = 12 B, #2) in step 0; rank 1 all_reduce(sum, 3 × float32 = 12 B, #2) in step 0]',
    );
    // The exits after the failure are its consequences, not a second failure.
    expect(s.of('failure')).toHaveLength(1);
    expect(s.record().status).toBe('error');
  });

  it("quotes an NCCL error's last WARN lines from the rank's own output, and the hints", () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }).open();
    s.output(0, 'host-a:1:1 [0] transport/shm.cc:1 NCCL WARN of rank 0', 1);
    for (let i = 1; i <= 7; i++) s.output(1, `host-a:2:1 [1] transport/shm.cc:${i} NCCL WARN warning ${i}`, 1);
    s.say(
      1,
      { type: 'failed', step: 0, code: 'NCCL_ERROR_SYSTEM_ERROR', message: 'rank 1: ncclAllReduce failed: unhandled system error' },
      2,
    );
    const lines = s.core.error!.message.split('\n');
    expect(lines[0]).toBe('rank 1 failed in step 0 (all_reduce): ncclAllReduce failed: unhandled system error');
    expect(lines[1]).toBe("  rank 1's last NCCL WARN lines:");
    expect(lines.slice(2, 7)).toEqual([3, 4, 5, 6, 7].map((i) => `    host-a:2:1 [1] transport/shm.cc:${i} NCCL WARN warning ${i}`));
    expect(lines.slice(7).every((l) => l.startsWith('  hint: '))).toBe(true);
    expect(lines.length).toBeGreaterThan(7);
    expect(s.core.error!.message).not.toContain('of rank 0');
  });

  it("kills the ranks once the abort's grace is over, once", () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }, { abortGraceMs: 500 }).open();
    s.say(0, { type: 'failed', step: null, code: 'CLAB_X', message: 'no' }, 100);
    expect(s.tick(599)).toEqual([]);
    expect(s.tick(600)).toEqual([{ kind: 'kill' }]);
    expect(s.tick(700)).toEqual([]);
  });

  it('says a message that broke the protocol', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }).open();
    s.invalid(1, 'rank 1: message.type: expected one of …', 1);
    expect(s.core.error).toMatchObject({ rank: 1, step: null, code: 'CLAB_PROTOCOL' });
  });
});

describe('a rank that exits before it is done', () => {
  it('names its step and keeps the steps finished before; the step in flight is an error with open slices up to the failure', () => {
    const s = new Script({
      world: { ranks: 3 },
      steps: [
        { op: 'all_reduce', count: 3 },
        { op: 'all_reduce', count: 4 },
      ],
    }).open();
    s.step(0, [0, 1, 2], 1);
    for (const r of [0, 1, 2]) s.begin(r, 1, 2);
    for (const r of [0, 2]) s.enter(r, 1, { ...allReduce, count: 4 }, 2);
    s.end(2, 1, 3);
    s.exited(1, { code: null, signal: 'SIGKILL' }, 5);
    expect(s.core.error).toMatchObject({ rank: 1, step: 1, code: 'CLAB_RANK_EXITED' });
    expect(s.core.error!.message).toMatch(/^rank 1 exited on signal SIGKILL during step 1 \(all_reduce\)/);
    s.exited(0, { signal: 'SIGKILL', code: null }, 7);
    s.exited(2, {}, 7);
    const record = s.record();
    expect(record.steps.map((x) => x.verdict)).toEqual(['pass', 'error']);
    // Ranks 0 and 1 were in step 1 when it failed (rank 2 had ended it): open slices from their begin to the failure.
    const open = record.events.filter((e) => e.phase === 'unfinished');
    expect(open.map((e) => [e.rank, e.step, e.startNs, e.endNs])).toEqual([
      [0, 1, 2e6, 5e6],
      [1, 1, 2e6, 5e6],
    ]);
    expect(open[0].name).toContain('(unfinished: in all_reduce(sum, 4 × float32 = 16 B, #2))');
    // While the run went on, the snapshot leaves a step in flight out.
    expect(s.record(false).steps.map((x) => x.index)).toEqual([0]);
  });

  it('names the step the others began first, and a step it takes no part in as such', () => {
    const s = new Script({ world: { ranks: 3 }, steps: [{ op: 'send', from: 0, to: 1, count: 3 }] }).open();
    s.begin(0, 0, 1);
    s.begin(1, 0, 1);
    s.exited(2, { code: 1 }, 2);
    expect(s.core.error!.message).toMatch(/^rank 2 exited with code 1 while idle, during step 0 \(.+\), which it takes no part in$/);
  });

  it('names the host of a rank whose link was lost', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }).open(0, {
      where: (rank) => `rank ${rank} on host ${rank === 1 ? 'b' : 'a'}`,
    });
    s.exited(1, { code: null, lost: 'the connection closed' }, 1);
    expect(s.core.error).toMatchObject({ rank: 1, step: null, code: 'CLAB_HOST_LOST' });
    expect(s.core.error!.message).toBe('rank 1 on host b was lost before its first step: the connection closed');
    const t = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }).open(0, { where: (r) => `rank ${r} on host b` });
    t.begin(1, 0, 1);
    t.exited(1, { code: null, lost: 'no heartbeat for 10 s' }, 2);
    expect(t.core.error!.message).toBe('rank 1 on host b was lost during step 0 (all_reduce): no heartbeat for 10 s');
  });

  it('dying at a gate between pairs names the gate', () => {
    const s = new Script({ world: { ranks: 4 }, steps: [{ op: 'pairs', bytes: 64, timeoutMs: 1500, latency: false, copy: false }] }).open();
    for (const r of [0, 1, 2, 3]) s.say(r, { type: 'gate', step: 0 }, 1);
    s.step(0, [0, 1], 2);
    const next = s.core.plan.steps.findIndex((x, i) => i > 0 && x.action.kind === 'pair' && x.action.opens);
    s.say(3, { type: 'gate', step: next }, 2);
    s.exited(3, { code: null, signal: 'SIGKILL' }, 3);
    expect(s.core.error).toMatchObject({ code: 'CLAB_RANK_EXITED', rank: 3, step: next });
    expect(s.core.error!.message).toMatch(new RegExp(`^rank 3 exited on signal SIGKILL while waiting at the gate of step ${next} \\(`));
  });
});

describe('the watchdog', () => {
  it('fails a step past its timeout, saying where each rank waits, and not before', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3, timeoutMs: 300 }] }).open();
    for (const r of [0, 1]) {
      s.begin(r, 0, 10);
      s.enter(r, 0, allReduce, 10);
    }
    expect(s.tick(310)).toEqual([]);
    s.tick(311);
    expect(s.core.error).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0, rank: null });
    expect(s.core.error!.message).toBe(
      'step 0 (all_reduce) did not finish on every rank within 300 ms: rank 0 waits in all_reduce(sum, 3 × float32 = 12 B, #2); rank 1 waits in all_reduce(sum, 3 × float32 = 12 B, #2)',
    );
  });

  it('fails the run when ranks do not join in time', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }, { startTimeoutMs: 1000 });
    s.core.opened({}, 0);
    s.say(0, { type: 'log', text: 'joined', atNs: 0 }, 10);
    s.tick(1000);
    expect(s.core.error).toBeNull();
    s.tick(1001);
    expect(s.core.error).toMatchObject({ code: 'CLAB_START_TIMEOUT', rank: 1 });
  });

  it("fails a pair's gate that a rank outside the pair never reaches, naming it and its last call", () => {
    const s = new Script({ world: { ranks: 4 }, steps: [{ op: 'pairs', bytes: 64, timeoutMs: 1500, latency: false, copy: false }] }).open();
    for (const r of [0, 1, 2, 3]) s.say(r, { type: 'gate', step: 0 }, 1);
    s.enter(3, null, { op: 'barrier' }, 1);
    s.step(0, [0, 1], 2);
    const next = s.core.plan.steps.findIndex((x, i) => i > 0 && x.action.kind === 'pair' && x.action.opens);
    // The last tick that saw a step run (or no one at a gate) starts the wait: the pair's timeout and 2 s of grace.
    s.tick(2);
    for (const r of [0, 1, 2]) s.say(r, { type: 'gate', step: next }, 3);
    expect(s.tick(100)).toEqual([]);
    expect(s.tick(2 + 3500)).toEqual([]);
    s.tick(2 + 3501);
    expect(s.core.error).toMatchObject({ code: 'CLAB_GATE_TIMEOUT', rank: 3, step: next });
    expect(s.core.error!.message).toMatch(
      new RegExp(
        `^rank 3 never reached the gate of step ${next} \\(.+\\) within 3500 ms, while ranks 0, 1, 2 waited there and no step ran \\(rank 3, its last call barrier\\(#2\\) of the line-up before the first step\\)$`,
      ),
    );
  });

  it('gives a pair that hangs its timeout and 10 s of grace before the run fails', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'pairs', bytes: 64, timeoutMs: 1000, latency: false, copy: false }] }).open();
    for (const r of [0, 1]) s.say(r, { type: 'gate', step: 0 }, 0);
    for (const r of [0, 1]) s.begin(r, 0, 0);
    expect(s.tick(11_000)).toEqual([]);
    s.tick(11_001);
    expect(s.core.error).toMatchObject({ code: 'CLAB_TIMEOUT', step: 0 });
  });
});

describe('step mode', () => {
  const steps = [
    { op: 'broadcast', count: 3, root: 1 },
    { op: 'send', from: 0, to: 2, count: 2 },
    { op: 'all_reduce', count: 3 },
  ];

  it('pauses once every rank waits, lets the step go on next(), and counts no paused time against a timeout', () => {
    const s = new Script({ world: { ranks: 3 }, steps, defaults: { warmup: 0, iters: 1, timeoutMs: 400 } }, { stepMode: true }).open();
    expect(s.next(0)).toBeNull();
    s.say(0, { type: 'paused', step: 0 }, 1);
    s.say(1, { type: 'paused', step: 0 }, 1);
    expect(s.of('paused')).toEqual([]);
    s.say(2, { type: 'paused', step: 0 }, 1);
    expect(s.of('paused')).toEqual([{ kind: 'paused', step: 0 }]);
    expect(s.core.pausedAt()).toBe(0);
    // The learner thinks for 10 s: nothing fails meanwhile.
    expect(s.tick(10_000)).toEqual([]);
    expect(s.next(10_000)).toEqual([{ kind: 'send', ranks: [0, 1, 2], message: { type: 'next', v: expect.any(Number), step: 0 } }]);
    expect(s.core.pausedAt()).toBeNull();
    s.step(0, [0, 1, 2], 10_100);
    // Rank 1 has no part in the send: it waits before the all_reduce meanwhile, and the pause is before the send.
    s.say(1, { type: 'paused', step: 2 }, 10_100);
    s.say(0, { type: 'paused', step: 1 }, 10_100);
    s.say(2, { type: 'paused', step: 1 }, 10_100);
    expect(s.of('paused').map((e) => e.step)).toEqual([0, 1]);
    expect(s.next(20_000)!.map((e) => e.kind === 'send' && e.ranks)).toEqual([[0, 2]]);
    expect(s.core.error).toBeNull();
  });

  it('announces the pause when the last rank still running leaves rather than pauses', () => {
    const s = new Script(
      {
        world: { ranks: 3 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'send', from: 0, to: 2, count: 3 },
        ],
      },
      { stepMode: true },
    ).open();
    for (const r of [0, 1, 2]) s.say(r, { type: 'paused', step: 0 }, 1);
    s.next(2);
    s.step(0, [0, 1, 2], 3);
    s.say(0, { type: 'paused', step: 1 }, 4);
    s.say(2, { type: 'paused', step: 1 }, 4);
    expect(s.of('paused').map((e) => e.step)).toEqual([0]);
    s.done(1, 400);
    expect(s.of('paused').map((e) => e.step)).toEqual([0, 1]);
  });

  it('gives a step still in flight through a pause the paused time back', () => {
    const s = new Script(
      {
        world: { ranks: 2 },
        defaults: { warmup: 0, iters: 1, timeoutMs: 300 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'all_reduce', count: 3 },
        ],
      },
      { stepMode: true },
    ).open();
    for (const r of [0, 1]) s.say(r, { type: 'paused', step: 0 }, 0);
    s.next(0);
    for (const r of [0, 1]) s.begin(r, 0, 0);
    // Step 0 is still in flight (asynchronous) while the ranks wait before step 1 for 800 ms.
    for (const r of [0, 1]) s.say(r, { type: 'paused', step: 1 }, 100);
    s.tick(900);
    s.next(900);
    expect(s.tick(1000)).toEqual([]);
    s.step(0, [0, 1], 1050);
    expect(s.core.error).toBeNull();
  });

  it('announces a pause once the ranks that take no part in the rest have finished', () => {
    // Rank 1 has nothing after the all_reduce: it is done before ranks 0 and 2 wait before the send.
    const s = new Script(
      {
        world: { ranks: 3 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'send', from: 0, to: 2, count: 3 },
        ],
      },
      { stepMode: true },
    ).open();
    for (const r of [0, 1, 2]) s.say(r, { type: 'paused', step: 0 }, 1);
    s.next(2);
    s.step(0, [0, 1, 2], 3);
    s.done(1, 4);
    s.say(0, { type: 'paused', step: 1 }, 5);
    expect(s.of('paused').map((e) => e.step)).toEqual([0]);
    s.say(2, { type: 'paused', step: 1 }, 5);
    expect(s.of('paused').map((e) => e.step)).toEqual([0, 1]);
  });

  it('a run not told next stays paused before its first step, records nothing, and a stop ends it', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] }, { stepMode: true, startTimeoutMs: 1000 }).open();
    for (const r of [0, 1]) s.say(r, { type: 'paused', step: 0 }, 1);
    for (let t = 100; t <= 60_000; t += 100) expect(s.tick(t)).toEqual([]);
    expect(s.core.pausedAt()).toBe(0);
    expect(s.record(false).steps).toEqual([]);
    s.stop('stopped by the user', 60_001);
    for (const r of [0, 1]) s.exited(r, { code: 0 }, 60_002);
    expect(s.record().status).toBe('aborted');
  });

  it("pauses before each pair, the ranks outside the pair waiting at the next pair's gate", () => {
    const s = new Script(
      { world: { ranks: 3 }, steps: [{ op: 'pairs', bytes: 64, latency: false, copy: false }] },
      { stepMode: true },
    ).open();
    const pairs = s.core.plan.steps.map((x) => x.action).filter((a) => a.kind === 'pair');
    expect(pairs).toHaveLength(6);
    // Every rank meets at each pair's gate: those of the pair before once it ended, the one outside it earlier.
    let coming = [0, 1, 2];
    for (const [i, a] of pairs.entries()) {
      const inPair = [a.from, a.to];
      for (const r of coming) s.say(r, { type: 'gate', step: i }, i);
      expect(s.sent('gate-open').at(-1)).toBe(`gate-open ${i}→0,1,2`);
      // The pair's ranks wait before its step; the rank outside goes on to the next pair's gate.
      for (const r of inPair) s.say(r, { type: 'paused', step: i }, i);
      const outside = [0, 1, 2].find((x) => !inPair.includes(x))!;
      if (i + 1 < pairs.length) s.say(outside, { type: 'gate', step: i + 1 }, i);
      else s.done(outside, i);
      expect(s.core.pausedAt()).toBe(i);
      expect(s.next(i)!.map((e) => e.kind === 'send' && [...e.ranks].sort())).toEqual([[...inPair].sort()]);
      s.step(i, inPair, i);
      coming = inPair;
    }
    expect(s.of('paused').map((e) => e.step)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('a stop during a pause aborts the run, its steps in flight stopped, not failed', () => {
    const s = new Script(
      {
        world: { ranks: 2 },
        steps: [
          { op: 'all_reduce', count: 3 },
          { op: 'broadcast', count: 3 },
        ],
      },
      { stepMode: true },
    ).open();
    for (const r of [0, 1]) s.say(r, { type: 'paused', step: 0 }, 0);
    s.next(1);
    s.step(0, [0, 1], 2);
    s.begin(0, 1, 3);
    s.stop('stopped by the user', 4);
    expect(s.sent('abort')).toEqual(['abort→0,1']);
    expect(s.next(5)).toBeNull();
    for (const r of [0, 1]) s.exited(r, { code: null, signal: 'SIGTERM' }, 6);
    const record = s.record();
    expect(record.status).toBe('aborted');
    expect(record.error).toMatchObject({ code: 'CLAB_STOPPED', rank: null, message: 'stopped by the user' });
    expect(record.steps.map((x) => [x.index, x.verdict])).toEqual([
      [0, 'pass'],
      [1, 'stopped'],
    ]);
  });
});

describe('stop', () => {
  it('while the ranks are still coming ends the wait, and the record says the run was stopped', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] });
    expect(s.stop('interrupted (SIGINT)', 0)).toEqual([{ kind: 'close', reason: 'interrupted (SIGINT)' }]);
    expect(s.core.openFailed(undefined, 'the launcher gave up', 1)).toContainEqual({ kind: 'end' });
    const record = s.record();
    expect(record.status).toBe('aborted');
    expect(record.error).toMatchObject({ code: 'CLAB_STOPPED', message: 'the launcher gave up' });
  });

  it('a world that never came together is a start timeout unless its error says otherwise', () => {
    const s = new Script({ world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] });
    s.core.openFailed(undefined, 'only 1 of 2 ranks joined', 0);
    expect(s.record()).toMatchObject({ status: 'error', error: { code: 'CLAB_START_TIMEOUT' } });
  });

  it('after the run ended or failed changes nothing', () => {
    const s = new Script({ world: { ranks: 1 }, steps: [{ op: 'all_reduce', count: 3 }] }).open();
    s.step(0, [0], 1).finish(2);
    expect(s.stop('late', 3)).toEqual([]);
    expect(s.record().status).toBe('passed');
  });
});

describe('the answer, and the ranks leaving', () => {
  const oneStep = { world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] };

  it('answers once every rank is done, before any rank process has ended; the exits then end the run', () => {
    const s = new Script(oneStep).open().step(0, [0, 1], 1);
    s.done(0, 2);
    expect(s.of('answer')).toEqual([]);
    s.done(1, 3);
    expect(s.effects.slice(-2).map((e) => (e.kind === 'send' ? `send ${e.message.type}` : e.kind))).toEqual(['send leave', 'answer']);
    expect(s.record().status).toBe('passed');
    s.exited(0, {}, 4);
    expect(s.of('end')).toEqual([]);
    s.exited(1, { code: null, signal: 'SIGSEGV' }, 5);
    // A rank that is done ends as it may: the run's outcome was known already.
    expect(s.of('end')).toHaveLength(1);
    expect(s.record().status).toBe('passed');
  });

  it('gives no answer at the last done of a run that failed: its end does', () => {
    const s = new Script(oneStep).open();
    s.say(1, { type: 'failed', step: null, code: 'CLAB_INTERNAL', message: 'broke' }, 1);
    s.done(0, 2);
    s.done(1, 2);
    expect(s.sent('leave')).toEqual(['leave→0,1']);
    expect(s.of('answer')).toEqual([]);
  });

  it('kills ranks still there past the grace after leave, once, and says which', () => {
    const s = new Script(oneStep, { leaveGraceMs: 1000 }).open().step(0, [0, 1], 1);
    s.done(0, 2);
    s.done(1, 2);
    s.exited(0, {}, 3);
    expect(s.tick(1001)).toEqual([]);
    const late = s.tick(1002);
    expect(late.map((e) => e.kind)).toEqual(['log', 'kill']);
    expect(s.of('log').at(-1)!.line.text).toBe('rank 1 had not exited 1 s after every rank was done: killed');
    expect(s.tick(5000)).toEqual([]);
    s.exited(1, { code: null, signal: 'SIGKILL' }, 5001);
    expect(s.of('end')).toHaveLength(1);
    expect(s.record().status).toBe('passed');
  });

  it('has nothing to stop once every rank is done', () => {
    const s = new Script(oneStep).open().step(0, [0, 1], 1);
    s.done(0, 2);
    s.done(1, 2);
    expect(s.stop('interrupted (SIGINT)', 3)).toEqual([]);
  });
});

describe("the GPUs' topology from a rank", () => {
  const topology = { gpus: [], links: [], versions: { nccl: '2.28.3' }, problems: [] };
  const oneStep = { world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 3 }] };

  it('asks the rank named for it alone, in its start, and passes on what it sends', () => {
    const s = new Script(oneStep, { topologyFrom: 0 }).open();
    expect(s.of('send').map((e) => (e.message.type === 'start' ? e.message.topology : 'other'))).toEqual([true, undefined]);
    s.say(0, { type: 'topology', topology }, 1);
    expect(s.of('topology')).toEqual([{ kind: 'topology', topology }]);
  });

  it('asks no rank where no rank is named', () => {
    const s = new Script(oneStep).open();
    expect(s.of('send').every((e) => e.message.type !== 'start' || e.message.topology === undefined)).toBe(true);
  });

  for (const [what, from, repeat] of [
    ['a rank not asked', 1, false],
    ['the rank asked, twice', 0, true],
  ] as const)
    it(`fails the run on a topology from ${what}`, () => {
      const s = new Script(oneStep, { topologyFrom: 0 }).open();
      if (repeat) s.say(0, { type: 'topology', topology }, 1);
      s.say(from, { type: 'topology', topology }, 2);
      expect(s.of('failure').map((e) => [e.error.code, e.error.rank])).toEqual([['CLAB_PROTOCOL', from]]);
      expect(s.of('topology')).toHaveLength(repeat ? 1 : 0);
    });
});
