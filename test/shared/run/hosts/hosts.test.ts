import { describe, expect, it } from 'vitest';
import { clockOffset, hostDifferences, versionMismatch, LINK_VERSION } from '../../../../src/shared/run/hosts/hosts';
import { PROTOCOL_VERSION } from '../../../../src/shared/run/rank/protocol';
import type { Environment } from '../../../../src/shared/run/record/record';

describe('clock offset from pings', () => {
  it('takes the ping of smallest round trip: the worker read its clock halfway, give or take half of it', () => {
    const samples = [
      { sentNs: 0, workerNs: 5_000_900, receivedNs: 2000 }, // rtt 2000
      { sentNs: 10_000, workerNs: 5_010_100, receivedNs: 10_200 }, // rtt 200: offset 5_000_000
      { sentNs: 20_000, workerNs: 5_030_000, receivedNs: 21_000 },
    ];
    expect(clockOffset(samples)).toEqual({ offsetNs: 5_000_000, errorNs: 100, samples: 3 });
  });
});

describe('hosts that differ', () => {
  const env = (nccl: string, gpu: string) =>
    ({
      versions: { nccl, node: '20' },
      gpus: [{ index: 0, name: gpu, memoryBytes: 1, busId: 'x' }],
      node: 'v20',
    }) as unknown as Environment;
  it('warns of two NCCL versions and two GPU models, naming the hosts', () => {
    const w = hostDifferences([
      { name: 'a', environment: env('2.21.5', 'H100') },
      { name: 'b', environment: env('2.19.3', 'H100') },
      { name: 'c', environment: env('2.21.5', 'A100') },
    ]);
    expect(w).toContain('hosts differ in nccl version: 2.21.5 on a, c; 2.19.3 on b');
    expect(w).toContain('hosts differ in GPUs: H100 on a, b; A100 on c');
  });
  it('says nothing of hosts alike', () => {
    expect(
      hostDifferences([
        { name: 'a', environment: env('2', 'H100') },
        { name: 'b', environment: env('2', 'H100') },
      ]),
    ).toEqual([]);
  });
});

describe('versions', () => {
  it("names both sides' versions when the worker speaks another protocol", () => {
    expect(versionMismatch({ link: LINK_VERSION, protocol: PROTOCOL_VERSION })).toBeNull();
    expect(versionMismatch({ link: LINK_VERSION, protocol: PROTOCOL_VERSION + 1 })).toMatch(
      /protocol version mismatch: the worker speaks link 2 \/ rank protocol 2, the core link 2 \/ rank protocol 1/,
    );
    expect(versionMismatch({ link: 1, protocol: PROTOCOL_VERSION })).toMatch(
      /the worker speaks link 1 \/ rank protocol 1, the core link 2/,
    );
  });
});
