// Graph launch without a GPU: the loop's capture, instantiation and replay (native/gpu/graph_loop.cc)
// against a CUDA runtime of the test-only module that logs each call instead of making it, and the
// addon's options.launch on a backend that has no graphs (cpu).
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { NativeComm } from '../../src/addon/native-api';
import { cpuCommInit, createId } from './ranks';

type Play = { calls: string[]; error?: { code: string; message: string } };
const hooks = createRequire(import.meta.url)(path.resolve('build/native/Release/clab_test_hooks.node')) as {
  graphLoopPlay(repeat: number, failAt: string, timed?: boolean): Play;
};

const BEGIN = 'begin capture thread-local';
const INSTANTIATE = 'instantiate the captured graph, flags 0';
const DESTROYED = ['destroy the executable graph', 'destroy the graph'];

describe('a graph-launched loop, against a logging CUDA runtime', () => {
  it('captures the repetitions once, thread-local, instantiates them and replays them in one launch', () => {
    expect(hooks.graphLoopPlay(4, '')).toEqual({
      calls: [BEGIN, 'op', 'op', 'op', 'op', 'end capture', INSTANTIATE, 'launch', ...DESTROYED],
    });
  });

  it('times a replay by the graph itself: the loop’s begin and end events are nodes around its ops', () => {
    expect(hooks.graphLoopPlay(3, '', true)).toEqual({
      calls: [
        BEGIN,
        'record the begin event, external',
        'op',
        'op',
        'op',
        'record the end event, external',
        'end capture',
        INSTANTIATE,
        'launch',
        ...DESTROYED,
      ],
    });
  });

  it('ends the capture when recording an event into it fails, and names the call', () => {
    const play = hooks.graphLoopPlay(3, 'record', true);
    expect(play.calls).toEqual([BEGIN, 'record the begin event, external', 'end capture', 'destroy the graph', 'clear the last error']);
    expect(play.error?.message).toMatch(/^rank 3: cudaEventRecordWithFlags failed: cudaErrorStreamCaptureInvalidated \(/);
  });

  it('ends the capture and drops its graph when an op fails inside it, and throws the op’s own error', () => {
    expect(hooks.graphLoopPlay(4, 'op')).toEqual({
      calls: [BEGIN, 'op', 'op', 'end capture', 'destroy the graph', 'clear the last error'],
      error: { code: 'NCCL_ERROR_INVALID_USAGE', message: 'rank 3: ncclAllReduce failed' },
    });
  });

  it('names the CUDA call that failed, and frees what was made before it', () => {
    const failed = (at: string) => hooks.graphLoopPlay(2, at);
    expect(failed('begin')).toMatchObject({ calls: [BEGIN], error: { code: 'cudaErrorStreamCaptureInvalidated' } });
    expect(failed('begin').error?.message).toMatch(/^rank 3: cudaStreamBeginCapture failed: cudaErrorStreamCaptureInvalidated \(/);
    expect(failed('end')).toMatchObject({ calls: [BEGIN, 'op', 'op', 'end capture'] });
    expect(failed('end').error?.message).toMatch(/^rank 3: cudaStreamEndCapture failed/);
    expect(failed('instantiate')).toMatchObject({ calls: [BEGIN, 'op', 'op', 'end capture', INSTANTIATE, 'destroy the graph'] });
    expect(failed('instantiate').error?.message).toMatch(/^rank 3: cudaGraphInstantiate failed/);
    expect(failed('launch')).toMatchObject({ calls: [BEGIN, 'op', 'op', 'end capture', INSTANTIATE, 'launch', ...DESTROYED] });
    expect(failed('launch').error?.message).toMatch(/^rank 3: cudaGraphLaunch failed/);
  });
});

describe("the addon's options.launch", () => {
  const comms: NativeComm[] = [];
  afterAll(() => comms.forEach((c) => c.destroy()));
  const x = new Float32Array([1, 2, 3]);
  const op = { op: 'all_reduce', dtype: 'float32', redop: 'sum', count: 3, send: x, recv: new Float32Array(3) } as const;
  const rejection = (p: Promise<unknown>) =>
    p.then(
      () => null,
      (e: Error & { code?: string }) => [e.code, e.message],
    );

  it('says a cpu communicator launches no graphs, refuses a graph-launched loop and goes on', async () => {
    const c = await cpuCommInit(createId(1), 0, 1);
    comms.push(c);
    expect(c.launchesGraphs).toBe(false);
    expect(await rejection(c.enqueue(0, op, 3, { launch: 'graph' }))).toEqual([
      'CLAB_UNSUPPORTED',
      'graph launch captures the loop in a CUDA graph: the nccl backend has them, this one does not',
    ]);
    const host = await c.enqueue(0, op, 3, { loop: true, launch: 'host' });
    expect(host.startNs).toHaveLength(3);
    expect(host.launch).toBeUndefined();
  });

  it('refuses a launch it does not know, naming the option', async () => {
    const c = await cpuCommInit(createId(1), 0, 1);
    comms.push(c);
    expect(await rejection(c.enqueue(0, op, 1, { launch: 'device' as 'graph' }))).toEqual([
      'CLAB_INVALID_ARGUMENT',
      "options.launch must be 'host' or 'graph' (got 'device')",
    ]);
  });
});
