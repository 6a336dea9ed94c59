import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastNcclWarnings, rankFailureMessage, WARN_LINES_SHOWN } from '../../../../src/main/core/run/rank-failure.js';
import { LabRun } from '../../../../src/main/core/run/run.js';
import { PROTOCOL_VERSION } from '../../../../src/shared/run/rank/protocol.js';
import type { LogLine } from '../../../../src/shared/run/record/record.js';
import { compileLoaded, parseScenarioText } from '../../../../src/shared/plan/text.js';

const line = (rank: number | null, text: string, atNs = 0): LogLine => ({ rank, atNs, text });
const warn = (rank: number, i: number, what = `warning ${i}`) =>
  line(rank, `host-a:${4200 + rank}:${4300 + i} [${rank}] transport/p2p.cc:${100 + i} NCCL WARN ${what}`);
const P2P_ERROR = {
  rank: 1,
  step: 2,
  stepLabel: 'all_reduce 1 MiB',
  code: 'NCCL_ERROR_UNHANDLED_CUDA_ERROR',
  message:
    "rank 1: ncclAllReduce failed: NCCL_ERROR_UNHANDLED_CUDA_ERROR (unhandled cuda error (run with NCCL_DEBUG=INFO for details)); NCCL's last warning: Cuda failure 'peer access is not supported between these two devices'",
};

describe('rankFailureMessage', () => {
  it("carries the error (its name and NCCL's last warning), the rank's NCCL WARN lines in order, then the hints", () => {
    const logs = [
      line(null, 'run x: 2 ranks on the nccl backend, 3 steps'),
      line(0, 'host-a:4200:4300 [0] NCCL INFO comm 0x1 rank 0 nranks 2'),
      warn(0, 1, 'a warning of rank 0'),
      line(1, ''),
      warn(1, 1, 'failed to peer with device 0'),
      line(1, 'host-a:4201:4301 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via P2P/IPC'),
      warn(1, 2, "Cuda failure 'peer access is not supported between these two devices'"),
    ];
    const text = rankFailureMessage(P2P_ERROR, logs);
    expect(text.split('\n')).toEqual([
      "rank 1 failed in step 2 (all_reduce 1 MiB): ncclAllReduce failed: NCCL_ERROR_UNHANDLED_CUDA_ERROR (unhandled cuda error (run with NCCL_DEBUG=INFO for details)); NCCL's last warning: Cuda failure 'peer access is not supported between these two devices'",
      "  rank 1's last NCCL WARN lines:",
      '    host-a:4201:4301 [1] transport/p2p.cc:101 NCCL WARN failed to peer with device 0',
      "    host-a:4201:4302 [1] transport/p2p.cc:102 NCCL WARN Cuda failure 'peer access is not supported between these two devices'",
      expect.stringMatching(/^ {2}hint: a transport between GPUs failed; .*NCCL_P2P_DISABLE=1.*NCCL_P2P_LEVEL=NVL.*NCCL_SHM_DISABLE=1/),
      expect.stringMatching(/^ {2}hint: a CUDA call inside NCCL failed/),
    ]);
    expect(text).not.toContain('a warning of rank 0');
  });

  it(`keeps only the rank's last ${WARN_LINES_SHOWN} NCCL WARN lines`, () => {
    const logs = Array.from({ length: 8 }, (_, i) => warn(1, i));
    expect(lastNcclWarnings(logs, 1)).toEqual(logs.slice(3).map((l) => l.text));
    const text = rankFailureMessage(P2P_ERROR, logs);
    expect(text).not.toContain('NCCL WARN warning 2');
    expect(text.match(/NCCL WARN warning \d/g)).toEqual([
      'NCCL WARN warning 3',
      'NCCL WARN warning 4',
      'NCCL WARN warning 5',
      'NCCL WARN warning 6',
      'NCCL WARN warning 7',
    ]);
  });

  it('says "while starting" for a failure before the first step, and names the usual causes of invalid usage', () => {
    const text = rankFailureMessage(
      {
        rank: 0,
        step: null,
        stepLabel: null,
        code: 'NCCL_ERROR_INVALID_USAGE',
        message:
          "rank 0: ncclCommInitRank failed: NCCL_ERROR_INVALID_USAGE (invalid usage (run with NCCL_DEBUG=WARN for details)); NCCL's last warning: Failed to initialize any NET plugin",
      },
      [line(0, 'host-a:4200:4300 [0] plugin/net.cc:349 NCCL WARN Failed to initialize any NET plugin')],
    );
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      "rank 0 failed while starting: ncclCommInitRank failed: NCCL_ERROR_INVALID_USAGE (invalid usage (run with NCCL_DEBUG=WARN for details)); NCCL's last warning: Failed to initialize any NET plugin",
    );
    expect(lines[1]).toBe("  rank 0's last NCCL WARN line:");
    expect(lines[2]).toBe('    host-a:4200:4300 [0] plugin/net.cc:349 NCCL WARN Failed to initialize any NET plugin');
    expect(lines[3]).toMatch(/^ {2}hint: the usual causes: ranks that disagree on a call \(a different count, dtype, reduce op or root/);
    expect(lines).toHaveLength(4);
  });

  it("leaves the lab's own errors as one line, without NCCL lines or hints", () => {
    const logs = [warn(1, 1, 'an earlier warning about P2P')];
    expect(
      rankFailureMessage(
        { rank: 1, step: 1, stepLabel: 'all_reduce', code: 'CLAB_OUT_OF_MEMORY', message: 'cannot allocate 16000000000 bytes' },
        logs,
      ),
    ).toBe('rank 1 failed in step 1 (all_reduce): cannot allocate 16000000000 bytes');
    expect(
      rankFailureMessage(
        { rank: 1, step: 4, stepLabel: null, code: 'CLAB_ABORTED', message: 'rank 1: communicator aborted: the lab core disconnected' },
        logs,
      ),
    ).toBe('rank 1 failed in step 4 (?): communicator aborted: the lab core disconnected');
  });

  it('gives an NCCL error with no WARN lines its hint alone', () => {
    const text = rankFailureMessage(
      {
        rank: 0,
        step: 0,
        stepLabel: 'broadcast',
        code: 'NCCL_ERROR_REMOTE_ERROR',
        message: 'rank 0: ncclBroadcast failed: NCCL_ERROR_REMOTE_ERROR (remote process exited or there was a network error)',
      },
      [],
    );
    expect(text.split('\n')).toEqual([
      'rank 0 failed in step 0 (broadcast): ncclBroadcast failed: NCCL_ERROR_REMOTE_ERROR (remote process exited or there was a network error)',
      expect.stringMatching(/^ {2}hint: another rank \(or the connection to it\) failed first/),
    ]);
  });
});

describe('a rank that fails with an NCCL error, through the lab core', () => {
  it.each([
    ['exits at once', '0'],
    ['lingers until it is aborted', '1'],
  ])("ends the run with the error, the rank's last NCCL WARN lines from its output and the hints (the rank %s)", async (_, linger) => {
    const loaded = parseScenarioText(
      JSON.stringify({ version: 1, name: 'nccl-error', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] }),
      'inline.scenario.json',
    );
    const record = await new LabRun({
      plan: compileLoaded(loaded),
      backend: 'cpu',
      scenario: loaded.raw,
      scenarioFile: null,
      workerEntry: path.resolve('test/fixtures/workers/nccl-failing-rank.cjs'),
      env: { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION), CLAB_TEST_LINGER: linger },
      abortGraceMs: 500,
    }).run();
    expect(record.status).toBe('error');
    expect(record.error).toMatchObject({ rank: 1, step: 0, code: 'NCCL_ERROR_SYSTEM_ERROR' });
    const lines = record.error!.message.split('\n');
    expect(lines[0]).toBe(
      "rank 1 failed in step 0 (all_reduce): ncclAllReduce failed: NCCL_ERROR_SYSTEM_ERROR (unhandled system error); NCCL's last warning: warning 7",
    );
    expect(lines[1]).toBe("  rank 1's last NCCL WARN lines:");
    expect(lines.slice(2, 7).map((l) => l.replace(/:\d+:1 /, ':PID:1 '))).toEqual(
      [3, 4, 5, 6, 7].map((i) => `    host-a:PID:1 [1] transport/shm.cc:${i} NCCL WARN warning ${i}`),
    );
    expect(lines.slice(7)).toEqual([
      expect.stringMatching(/^ {2}hint: .*NCCL_SHM_DISABLE=1/),
      expect.stringMatching(/^ {2}hint: .*\/dev\/shm/),
    ]);
    expect(record.logs.filter((l) => l.text.startsWith('error: '))).toEqual([
      expect.objectContaining({ rank: 1, text: `error: ${record.error!.message}` }),
    ]);
  });
});
