import { describe, expect, it } from 'vitest';
import { isGpuLibraryCode, isNcclWarnLine, ncclHints } from '../../../../src/shared/run/nccl/nccl-hints.js';

const P2P_WARN =
  "host-a:4242:4300 [1] transport/p2p.cc:275 NCCL WARN Cuda failure 'peer access is not supported between these two devices'";
const SHM_WARN = 'host-a:4242:4300 [0] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device';
const joined = (hints: string[]) => hints.join('\n');

describe('NCCL WARN lines', () => {
  it('are the lines NCCL marks with NCCL WARN, with or without a file and timestamp', () => {
    expect(isNcclWarnLine(P2P_WARN)).toBe(true);
    expect(isNcclWarnLine('[2025-01-02 10:00:00] host-a:4242:4300 [0] NCCL WARN Error: network bogus not found.')).toBe(true);
    expect(isNcclWarnLine('host-a:4242:4242 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>')).toBe(false);
    expect(isNcclWarnLine('NCCL WARNING is not a marker')).toBe(false);
  });
});

describe('ncclHints', () => {
  it('suggests turning transports off one at a time when NCCL names P2P, SHM, a transport, cudaIpc, NVLink or peer access', () => {
    for (const text of [
      P2P_WARN,
      SHM_WARN,
      'transport/net.cc:1120 NCCL WARN connection failed',
      'cudaIpcOpenMemHandle failed',
      'NVLink error',
      'failed to enable peer access',
    ]) {
      const hints = joined(ncclHints('NCCL_ERROR_INTERNAL_ERROR', [text]));
      expect(hints, text).toContain('NCCL_P2P_DISABLE=1');
      expect(hints, text).toContain('NCCL_P2P_LEVEL=');
      expect(hints, text).toContain('NCCL_SHM_DISABLE=1');
    }
    expect(
      joined(
        ncclHints('cudaErrorPeerAccessUnsupported', [
          'cudaErrorPeerAccessUnsupported (peer access is not supported between these two devices)',
        ]),
      ),
    ).toContain('NCCL_P2P_DISABLE=1');
  });

  it('names the usual causes of invalid usage and invalid arguments', () => {
    for (const code of ['NCCL_ERROR_INVALID_USAGE', 'NCCL_ERROR_INVALID_ARGUMENT']) {
      const hints = ncclHints(code, ['ncclCommInitRank failed: NCCL_ERROR_INVALID_USAGE (invalid usage)']);
      expect(hints).toHaveLength(1);
      expect(hints[0]).toMatch(/count, dtype, reduce op or root/);
      expect(hints[0]).toMatch(/two ranks on one GPU/);
    }
  });

  it('points a system error at NCCL_DEBUG=INFO and /dev/shm, and adds the transport hint when NCCL names one', () => {
    const plain = ncclHints('NCCL_ERROR_SYSTEM_ERROR', ['ncclCommInitRank failed: NCCL_ERROR_SYSTEM_ERROR (unhandled system error)']);
    expect(plain).toHaveLength(1);
    expect(plain[0]).toMatch(/NCCL_DEBUG=INFO/);
    expect(plain[0]).toMatch(/\/dev\/shm/);
    const shm = ncclHints('NCCL_ERROR_SYSTEM_ERROR', ['ncclCommInitRank failed', SHM_WARN]);
    expect(shm).toHaveLength(2);
    expect(shm[0]).toMatch(/NCCL_SHM_DISABLE=1/);
    expect(shm[1]).toMatch(/\/dev\/shm/);
  });

  it('says that another rank failed first for a remote error, before anything else', () => {
    const hints = ncclHints('NCCL_ERROR_REMOTE_ERROR', [
      'remote process exited or there was a network error',
      'transport/net.cc NCCL WARN NET/Socket : peer closed',
    ]);
    expect(hints[0]).toMatch(/^another rank .* failed first/);
    expect(hints[1]).toMatch(/NCCL_P2P_DISABLE/);
  });

  it("has nothing to say where no hint is known, or about the lab's own errors", () => {
    expect(ncclHints('NCCL_ERROR_INTERNAL_ERROR', ['internal error - please report this issue to the NCCL developers'])).toEqual([]);
    expect(ncclHints('CLAB_ABORTED', ['communicator aborted: rank 1 failed: peer access is not supported'])).toEqual([]);
    expect(ncclHints('CLAB_INVALID_ARGUMENT', ['op.root 2 is out of range'])).toEqual([]);
    expect([
      isGpuLibraryCode('NCCL_ERROR_SYSTEM_ERROR'),
      isGpuLibraryCode('cudaErrorIllegalAddress'),
      isGpuLibraryCode('CLAB_TIMEOUT'),
    ]).toEqual([true, true, false]);
  });
});
