// Which ranks load the lab's NCCL plug-ins: real rank processes on the nccl backend, forked by the
// core with the environment it hands them, or by a `clab worker` with its own. They decide before
// they load NCCL, so the decision is in their log here too, where NCCL is missing and they fail next.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compilePlan } from '../../../src/shared/plan/compile';
import { INSIDE_NCCL_FORCED_OFF, INSIDE_NCCL_NOT_ASKED } from '../../../src/shared/run/nccl/inside-nccl';
import { runRecordSchema } from '../../../src/shared/run/record/record';
import { scenarioSchema } from '../../../src/shared/scenario/schema';
import { CLAB, endAll, start, startWorker, tokenFile } from './hosts/processes';
import { freePort } from '../../setup/free-port';

const base = { version: 1, name: 'inside', world: { ranks: 1 }, steps: [{ op: 'all_reduce', count: 4 }] };

/** The rank's lines about the plug-ins, for a scenario that asks (or not) with CLAB_NCCL_PROFILER `forced` where clab starts. */
async function pluginLines(insideNccl: boolean | undefined, forced: string | undefined): Promise<string[]> {
  const scenario = scenarioSchema.parse({ ...base, insideNccl });
  const env: NodeJS.ProcessEnv = { ...process.env, CLAB_NCCL_PROFILER: forced };
  if (forced === undefined) delete env.CLAB_NCCL_PROFILER;
  const record = await new LabRun({ plan: compilePlan(scenario), backend: 'nccl', scenario, scenarioFile: null, env }).run();
  const said = record.logs.filter((l) => l.rank === 0).map((l) => l.text);
  // The rank got past its decision: it then ran, or failed for want of NCCL or a GPU, and said so.
  expect(said.length).toBeGreaterThan(0);
  return said.filter((t) => /not recorded|plug-in is not used/.test(t));
}

describe('the plug-ins in the ranks the core forks', () => {
  it('are left out by default, the rank saying so once with how to ask', async () => {
    expect(await pluginLines(undefined, undefined)).toEqual([INSIDE_NCCL_NOT_ASKED]);
  });

  it('are named to NCCL where the scenario asks, or CLAB_NCCL_PROFILER=1 in the environment clab starts in', async () => {
    expect(await pluginLines(true, undefined)).toEqual([]);
    expect(await pluginLines(undefined, '1')).toEqual([]);
  });

  it('are left out with CLAB_NCCL_PROFILER=0 though the scenario asks', async () => {
    expect(await pluginLines(true, '0')).toEqual([INSIDE_NCCL_FORCED_OFF]);
  });
});

describe('the plug-ins in a rank that a clab worker starts', () => {
  afterEach(() => endAll());

  /** The rank's lines about the plug-ins, for a scenario that asks (or not), the worker started with `env`. */
  async function remoteLines(insideNccl: boolean, env: NodeJS.ProcessEnv): Promise<string[]> {
    const port = await freePort();
    const { dir, file } = tokenFile();
    const scenario = join(dir, 'inside.scenario.json');
    writeFileSync(scenario, JSON.stringify({ ...base, insideNccl }));
    const out = join(dir, 'run.json');
    const core = start('node', [CLAB, 'run', scenario, '--backend', 'nccl', '--listen', String(port), '--token-file', file, '--out', out], {
      CLAB_NCCL_PROFILER: '1', // the core's own environment does not reach a worker's ranks
    });
    const worker = startWorker(`127.0.0.1:${port}`, file, 0, 1, [], env);
    await Promise.all([core.exited, worker.exited]);
    const record = runRecordSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
    expect(record.logs.filter((l) => l.rank === 0).length, core.err).toBeGreaterThan(0);
    return record.logs.filter((l) => l.rank === 0 && /not recorded|plug-in is not used/.test(l.text)).map((l) => l.text);
  }

  it('are left out where the scenario does not ask, whatever the core was started with', async () => {
    expect(await remoteLines(false, { CLAB_NCCL_PROFILER: undefined })).toEqual([INSIDE_NCCL_NOT_ASKED]);
  });

  it("follow the worker's CLAB_NCCL_PROFILER over the scenario's ask", async () => {
    expect(await remoteLines(true, { CLAB_NCCL_PROFILER: '0' })).toEqual([INSIDE_NCCL_FORCED_OFF]);
    expect(await remoteLines(true, { CLAB_NCCL_PROFILER: undefined })).toEqual([]);
  });
});
