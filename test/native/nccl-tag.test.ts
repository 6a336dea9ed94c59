// A step's tag on its NCCL calls (native/nccl/nccl_tag.h) without NCCL: the test-only module plays
// NcclComm::issue's choice of entry point against a library of fakes that logs each call and the
// ncclCollConfig_t it was given. Whether issue() takes that path at all (a tag, the lab's plug-in
// loaded and not paused) needs a communicator, and so a GPU.
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_DIR, expectEnqueueOption } from './ranks';

const hooks = createRequire(import.meta.url)(path.join(BUILD_DIR, 'clab_test_hooks.node')) as {
  taggedCallPlay(
    op: string,
    tag: bigint,
    since231: boolean,
  ): { entry: string | null; calls: string[]; ok?: boolean; config?: Record<string, number | boolean | bigint> };
};

const UNDEF_INT = -(2 ** 31); // NCCL_CONFIG_UNDEF_INT

describe("a step's tag on its NCCL calls", () => {
  it('goes through the nccl*Config entry point of each collective, the tag its only setting', () => {
    const cases: [string, string, string][] = [
      ['all_reduce', 'ncclAllReduceConfig', 'AllReduce'],
      ['broadcast', 'ncclBroadcastConfig', 'Broadcast root 1'],
      ['reduce', 'ncclReduceConfig', 'Reduce root 1'],
      ['all_gather', 'ncclAllGatherConfig', 'AllGather'],
      ['reduce_scatter', 'ncclReduceScatterConfig', 'ReduceScatter'],
      ['all_to_all', 'ncclAlltoAllConfig', 'AlltoAll'],
      ['gather', 'ncclGatherConfig', 'Gather root 1'],
      ['scatter', 'ncclScatterConfig', 'Scatter root 1'],
    ];
    for (const [op, entry, call] of cases) {
      const played = hooks.taggedCallPlay(op, 5n, true);
      expect(played, op).toMatchObject({ entry, calls: [call], ok: true });
      // NCCL_COLL_CONFIG_INITIALIZER's values (NCCL 2.31's layout, 64 bytes), the tag aside.
      expect(played.config, op).toEqual({
        size: 64,
        magic: 0xcafebeef,
        version: 23100,
        ext: false,
        minCTAs: UNDEF_INT,
        maxCTAs: UNDEF_INT,
        nvlsCTAs: UNDEF_INT,
        cgaClusterSize: UNDEF_INT,
        algSelection: false,
        forceAlgSelection: 1,
        CTAPolicy: UNDEF_INT,
        userProfilerTag: 5n,
        tagOffset: 56,
      });
    }
  });

  it('leaves the plain call to an NCCL before 2.31, and to sends, receives, barriers and groups, which have no config', () => {
    for (const op of ['all_reduce', 'broadcast', 'all_to_all', 'scatter'])
      expect(hooks.taggedCallPlay(op, 5n, false), op).toEqual({ entry: null, calls: [] });
    for (const op of ['send', 'recv', 'barrier', 'group', 'gemm'])
      expect(hooks.taggedCallPlay(op, 5n, true), op).toEqual({ entry: null, calls: [] });
  });

  it("hands NCCL the tag's 64 bits as they are", () => {
    expect(hooks.taggedCallPlay('all_reduce', 2n ** 53n - 1n, true).config?.userProfilerTag).toBe(2n ** 53n - 1n);
  });

  it('is an enqueue option: a whole number below 2^53, which a backend other than nccl ignores', async () => {
    await expectEnqueueOption('tag', 5, [-1, 2 ** 53, 1.5, '5'], /^options\.tag must be/);
  });
});
