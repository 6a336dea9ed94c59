// The GPUs' topology for a run's record, read by a probe process (src/main/core/machine/topology-probe.ts,
// src/worker/topology-probe.ts): the lab's rank entry answers with what the addon reads (here, no GPU:
// none, and why); a message of the wrong shape, a probe that says nothing or one that hangs give null,
// and the one that hangs is killed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeTopology } from '../../../../src/main/core/machine/topology-probe';
import { resolveWorkerEntry } from '../../../../src/main/core/ground/paths';
import { tempDir } from '../../../setup/temp-dirs';
import { alive } from '../leftovers';

const dir = tempDir('topology-probe');
const stub = (name: string, body: string) => {
  const file = join(dir, name);
  writeFileSync(file, body);
  return file;
};

describe('the topology probe', () => {
  it("answers from the lab's rank entry with what the addon reads, under the environment it is given", async () => {
    const t = await probeTopology(resolveWorkerEntry(`${process.cwd()}/dist`), { ...process.env, CUDA_VISIBLE_DEVICES: '' });
    expect(t).not.toBeNull();
    expect(Array.isArray(t!.gpus) && Array.isArray(t!.links) && Array.isArray(t!.problems)).toBe(true);
    expect(typeof t!.versions).toBe('object');
  }, 20_000);

  it('believes no message of the wrong shape, and no probe that ends without one', async () => {
    const wrong = stub('wrong.cjs', "process.send({ type: 'topology', topology: { gpus: 'all of them' } }, () => process.disconnect());");
    const refused = stub('refused.cjs', "process.send({ type: 'topology-error', message: 'no CUDA' }, () => process.disconnect());");
    const silent = stub('silent.cjs', 'process.disconnect();');
    expect(await probeTopology(wrong, process.env)).toBeNull();
    expect(await probeTopology(refused, process.env)).toBeNull();
    expect(await probeTopology(silent, process.env)).toBeNull();
  }, 20_000);

  it('gives up on a probe that hangs, and kills it', async () => {
    const pidFile = join(dir, 'hung.pid');
    const hung = stub(
      'hung.cjs',
      `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000);`,
    );
    const t0 = Date.now();
    expect(await probeTopology(hung, process.env, 500)).toBeNull();
    expect(Date.now() - t0).toBeLessThan(5_000);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    for (let i = 0; i < 50 && alive(pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(alive(pid)).toBe(false);
  }, 20_000);
});
