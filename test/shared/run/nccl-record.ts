// A profiler plug-in record for the tests of the join and of the rank's profile: every field at its
// zero, the kind a collective's start, and what the test gives over it.
import type { NcclProfileRecord } from '../../../src/shared/run/nccl/nccl-records';

const ZERO: NcclProfileRecord = {
  kind: 'coll',
  point: 'start',
  id: 0,
  parent: 0,
  comm: '',
  hostNs: 0,
  gpuNs: 0n,
  seq: 0,
  count: 0,
  rank: 0,
  peer: 0,
  steps: 0,
  chunk: 0,
  channel: 0,
  nChannels: 0,
  nWarps: 0,
  isSend: false,
  state: 0,
  func: '',
  datatype: '',
  algo: '',
  proto: '',
};

export const ncclRecord = (over: Partial<NcclProfileRecord>): NcclProfileRecord => ({ ...ZERO, ...over });
