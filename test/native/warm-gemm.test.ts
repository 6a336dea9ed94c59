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

  it('refuses a device that is no GPU index', async () => {
    await expect(addon.warmGemm({ backend: 'nccl', device: -1, rank: 0 })).rejects.toMatchObject({ code: 'CLAB_INVALID_ARGUMENT' });
  });
});
