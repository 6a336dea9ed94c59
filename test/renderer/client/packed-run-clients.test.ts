// Both clients open a saved run the same way: the packed run from their door (the preload's run
// channel, or serve's HTTP route), unpacked and checked before any view sees it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IpcLabClient } from '../../../src/renderer/src/client/ipc-client';
import { WebSocketLabClient } from '../../../src/renderer/src/client/ws-client';
import type { LabBridge } from '../../../src/shared/run/api/bridge';
import { packRecord } from '../../../src/shared/run/record/packed-run';
import { runRecordSchema } from '../../../src/shared/run/record/record';
import { nodeUtf8 } from '../../../src/main/core/library/packed-runs';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';

const record = runRecordSchema.parse(syntheticRecord({ ranks: 2, rounds: 2, warmup: 0, iters: 1, name: 'opened' }));
const packed = packRecord(record, nodeUtf8);
/** The packed run with its first event's rank column made 7 (a world of 2). */
const spoiled = () => {
  const bytes = packRecord({ ...record, events: record.events.map((e, i) => (i === 0 ? { ...e, rank: 7 } : e)) }, nodeUtf8);
  return bytes;
};

afterEach(() => vi.unstubAllGlobals());

function bridge(openRunPacked: (path: string) => Promise<unknown>): LabBridge<File> & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    call: async (method) => {
      calls.push(method);
      return { stopped: true } as never;
    },
    onEvent: () => () => undefined,
    pathForFile: () => '',
    openRunPacked: openRunPacked as (path: string) => Promise<Uint8Array>,
  };
}

describe('opening a saved run in the Electron window', () => {
  it("unpacks the run channel's bytes into the record, wherever they lie in their buffer", async () => {
    const inLarger = new Uint8Array(packed.length + 5);
    inLarger.set(packed, 5);
    const lab = bridge(async () => inLarger.subarray(5));
    expect(await new IpcLabClient(lab).call('openRun', { path: 'a.run.json' })).toEqual(record);
    expect(lab.calls).toEqual([]);
    expect(await new IpcLabClient(lab).call('stopRun', { runId: 'r' })).toEqual({ stopped: true });
  });

  it('refuses bytes that do not hold a valid record, saying where', async () => {
    await expect(new IpcLabClient(bridge(async () => spoiled())).call('openRun', { path: 'a.run.json' })).rejects.toThrow(
      'the lab sent an invalid result for openRun: events.0: expected a rank of the world of 2 and a step of the plan',
    );
    await expect(new IpcLabClient(bridge(async () => 'text')).call('openRun', { path: 'a.run.json' })).rejects.toThrow(
      'the lab sent an invalid result for openRun: expected the packed run (bytes)',
    );
    await expect(
      new IpcLabClient(
        bridge(async () => {
          throw new Error('openRun: /etc/x is outside the runs directory');
        }),
      ).call('openRun', { path: '/etc/x' }),
    ).rejects.toThrow('openRun: /etc/x is outside the runs directory');
  });
});

describe('opening a saved run in a browser', () => {
  class QuietSocket {
    static readonly OPEN = 1;
    readyState = 0;
    constructor(readonly url: string) {}
    send(): void {}
  }

  it('fetches the packed run over HTTP and unpacks it; a refusal comes as its message', async () => {
    vi.stubGlobal('WebSocket', QuietSocket);
    const asked: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      asked.push(url);
      if (url.includes('bad'))
        return new Response(JSON.stringify({ error: 'openRun: bad is outside the runs directory' }), { status: 400 });
      if (url.includes('spoiled')) return new Response(spoiled());
      return new Response(packed);
    });
    const client = new WebSocketLabClient('ws://127.0.0.1:1/api');
    expect(await client.call('openRun', { path: 'runs/a b.run.json' })).toEqual(record);
    expect(asked[0]).toBe('/api/run?path=runs%2Fa%20b.run.json');
    await expect(client.call('openRun', { path: 'bad' })).rejects.toThrow('openRun: bad is outside the runs directory');
    await expect(client.call('openRun', { path: 'spoiled' })).rejects.toThrow(/^the lab sent an invalid result for openRun: events\.0: /);
  });
});
