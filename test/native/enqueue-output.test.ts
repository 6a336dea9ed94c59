// enqueue()'s `output` option: false where no one reads a run's output (a step's warm-up, a timed
// run checked afresh after it). nccl then copies nothing back and checks nothing (native
// NcclComm::execute_communication); the cpu backend, whose output is the host buffer itself,
// takes the option and ignores it. Anything but a boolean is refused, naming the option.
import { describe, expect, it } from 'vitest';
import { cpuCommInit, createId, shmExists } from './ranks';

describe("enqueue's output option", () => {
  it('is a boolean, which the cpu backend takes and ignores', async () => {
    const id = createId(1);
    const c = await cpuCommInit(id, 0, 1);
    try {
      const send = new Float32Array([1, 2]);
      const recv = new Float32Array(2);
      const op = { op: 'all_reduce', dtype: 'float32', count: 2, redop: 'sum', send, recv } as const;
      await expect(c.enqueue(0, op, 2, { output: false })).resolves.toMatchObject({ startNs: [expect.any(Number), expect.any(Number)] });
      expect([...recv]).toEqual([1, 2]);
      for (const output of [0, 'false', null])
        await expect(c.enqueue(0, op, 1, { output } as unknown as { output: boolean })).rejects.toMatchObject({
          code: 'CLAB_INVALID_ARGUMENT',
          message: expect.stringMatching(/^options\.output must be a boolean/),
        });
    } finally {
      c.destroy();
    }
    expect(shmExists(id)).toBe(false);
  });
});
