// warmGemm: a rank with GEMM steps has cuBLAS loaded and set up on its GPU while it joins the
// communicator (native NcclComm::warm_gemm). cpu has nothing to warm; without cuBLAS (as on this
// machine) the promise rejects naming what is missing, which the rank ignores there: its first
// GEMM step reports it, naming the step.
import { describe, expect, it } from 'vitest';
import { addon } from './ranks';

describe('warmGemm', () => {
  it('has nothing to do on cpu', async () => {
    await expect(addon.warmGemm({ backend: 'cpu', device: 0, rank: 0 })).resolves.toBeUndefined();
  });

  // Where nccl can run (a GPU, its runtime and NCCL) cuBLAS may well load: only a machine without them says.
  it.skipIf(addon.backends().nccl.available)(
    'rejects, naming the library, runtime or GPU it lacks, where it cannot set cuBLAS up',
    async () => {
      await expect(addon.warmGemm({ backend: 'nccl', device: 0, rank: 3 })).rejects.toMatchObject({
        message: expect.stringMatching(/cuBLAS|CUDA/),
      });
    },
  );

  it('refuses multiplies that are not a list of at most 8 gemm ops, naming the field', async () => {
    const gemm = { op: 'gemm', dtype: 'float16', m: 64, n: 64, k: 64 } as const;
    const warm = (gemms: unknown) => addon.warmGemm({ backend: 'cpu', device: 0, rank: 0, gemms } as Parameters<typeof addon.warmGemm>[0]);
    await expect(warm([gemm, gemm])).resolves.toBeUndefined();
    await expect(warm(gemm)).rejects.toMatchObject({
      code: 'CLAB_INVALID_ARGUMENT',
      message: expect.stringMatching(/^gemms must be an array/),
    });
    await expect(warm(Array(9).fill(gemm))).rejects.toMatchObject({ message: 'gemms: at most 8 (got 9)' });
    await expect(warm([{ ...gemm, dtype: 'float99' }])).rejects.toMatchObject({
      message: expect.stringMatching(/^gemms\[0\]\.dtype: unknown dtype/),
    });
    await expect(
      warm([{ op: 'all_reduce', dtype: 'float32', count: 2, redop: 'sum', send: new Float32Array(2), recv: new Float32Array(2) }]),
    ).rejects.toMatchObject({
      message: 'gemms[0].op must be gemm',
    });
  });

  it('refuses a device that is no GPU index', async () => {
    await expect(addon.warmGemm({ backend: 'nccl', device: -1, rank: 0 })).rejects.toMatchObject({ code: 'CLAB_INVALID_ARGUMENT' });
  });
});
