// A scenario sized for GPUs is refused on cpu before any rank starts, by both doors: no 60 s
// timeout at 2/56, no record of nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LabService } from '../../../src/main/core/service/lab-service';
import { tempDir } from '../../setup/temp-dirs';

const dir = tempDir('cpu-refusal');

describe('overlap-gpu on the cpu backend', () => {
  const service = new LabService({ runsDir: join(dir, 'runs') });
  afterAll(() => service.dispose());

  it('clab run refuses it at once, exit 2, saying which step and why', () => {
    const out = join(dir, 'gpu.run.json');
    const started = Date.now();
    const r = spawnSync(
      process.execPath,
      ['bin/clab.cjs', 'run', 'scenarios/overlap-gpu.scenario.json', '--backend', 'cpu', '--out', out],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/too much for cpu ranks: steps\[0\] "warm-up matmul"/);
    expect(r.stdout).not.toMatch(/µs|speed-up/);
    expect(existsSync(out)).toBe(false);
  });

  it('the lab service refuses to start it, saying the same', async () => {
    const text = readFileSync('scenarios/overlap-gpu.scenario.json', 'utf8');
    await expect(service.startRun({ text, file: null, backend: 'cpu', ranks: null })).rejects.toThrow(/too much for cpu ranks/);
  });
});
