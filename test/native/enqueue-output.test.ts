// enqueue()'s `output` option: false where no one reads a run's output (a step's warm-up, a timed
// run checked afresh after it). nccl then copies nothing back and checks nothing (native
// NcclComm::execute_communication); the cpu backend, whose output is the host buffer itself,
// takes the option and ignores it. Anything but a boolean is refused, naming the option.
import { describe, it } from 'vitest';
import { expectEnqueueOption } from './ranks';

describe("enqueue's output option", () => {
  it('is a boolean, which the cpu backend takes and ignores', async () => {
    await expectEnqueueOption('output', false, [0, 'false', null], /^options\.output must be a boolean/);
  });
});
