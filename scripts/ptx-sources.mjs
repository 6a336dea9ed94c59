// What the committed PTX of the data kernels is made from, and the hash that ties it to them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const PTX_FILE = 'native/data/data_kernels.ptx';
const SOURCES = ['native/data/data_kernels.cu', 'native/common/data_program.h'];

export function dataKernelSourcesHash() {
  const h = createHash('sha256');
  for (const f of SOURCES) h.update(readFileSync(f));
  return h.digest('hex');
}
