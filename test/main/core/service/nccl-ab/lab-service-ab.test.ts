// The lab service's NCCL A/B (startAb, listAbs, openAb) as a window calls it, through dispatch: its
// request checked and bounded like the rest of the API, refused on cpu in one line, and the A/B
// files of the runs folder listed and opened (outside it, refused). No GPU here: an A/B's runs are
// test/gpu's; on auto the first turn finds none and the A/B ends refused, leaving nothing behind.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dispatch } from '../../../../../src/main/core/service/dispatch';
import { LabService } from '../../../../../src/main/core/service/lab-service';
import { CPU_REFUSAL } from '../../../../../src/main/core/service/nccl-ab/start-ab';
import { saveAb } from '../../../../../src/main/core/service/nccl-ab/ab-file';
import { summarizeAb } from '../../../../../src/main/core/service/nccl-ab/summarize';
import type { ApiEvent } from '../../../../../src/shared/run/api/api';
import { tempDir } from '../../../../setup/temp-dirs';

const dir = tempDir('nccl-ab-service');
const runsDir = join(dir, 'runs');
mkdirSync(runsDir);
const service = new LabService({ runsDir, packedRunDir: null });
afterAll(() => service.dispose());

mkdirSync(join(dir, 'a'));
mkdirSync(join(dir, 'b'));
const A = join(dir, 'a', 'libnccl.so.2');
const B = join(dir, 'b', 'libnccl.so.2');
writeFileSync(A, 'not really NCCL');
writeFileSync(B, 'not really NCCL');

const SCENARIO = JSON.stringify({
  version: 1,
  name: 'ab',
  world: { ranks: 2 },
  steps: [{ op: 'all_reduce', count: 8 }],
});
const request = (over: Record<string, unknown> = {}) => ({
  text: SCENARIO,
  file: null,
  backend: 'auto',
  ranks: null,
  nccl: [A, B],
  repeats: 3,
  ...over,
});
const startAb = (params: unknown) => dispatch(service, { method: 'startAb', params });

describe('startAb', () => {
  it.each([
    ['no repeat', { repeats: 0 }, 'params.repeats'],
    ['more than 50 repeats', { repeats: 51 }, 'params.repeats'],
    ['a fraction of a repeat', { repeats: 2.5 }, 'params.repeats'],
    ['one library', { nccl: [A] }, 'params.nccl'],
    ['three libraries', { nccl: [A, B, A] }, 'params.nccl'],
    ['an empty path', { nccl: [A, ''] }, 'params.nccl.1'],
    ['a path past 4096 characters', { nccl: [A, `/${'x'.repeat(4096)}`] }, 'params.nccl.1'],
    ['an unknown field', { listen: '1234' }, 'listen'],
  ])('refuses %s, naming the parameter', async (_, over, param) => {
    await expect(startAb(request(over))).rejects.toThrow(new RegExp(`^invalid call to startAb: .*${param.replace(/\./g, '\\.')}`));
  });

  it('refuses the cpu backend in one line, before anything runs', async () => {
    await expect(startAb(request({ backend: 'cpu' }))).rejects.toThrow(CPU_REFUSAL);
    expect(readdirSync(runsDir)).toEqual([]);
  });

  it('names a library that is no file, B checked before A runs', async () => {
    const missing = join(dir, 'none', 'libnccl.so.2');
    await expect(startAb(request({ nccl: [A, missing], backend: 'nccl' }))).rejects.toThrow(
      `the NCCL library ${JSON.stringify(missing)}: no such file`,
    );
  });

  it('answers a scenario’s problems as startRun does', async () => {
    const answer = (await startAb(request({ text: '{"version": 1' }))) as { ok: boolean; problems?: unknown[] };
    expect(answer.ok).toBe(false);
    expect(answer.problems?.length).toBeGreaterThan(0);
  });

  it('on auto with no GPU here: started, then ended refused at the first turn, leaving no folder and no A/B file', async () => {
    const events: ApiEvent[] = [];
    const stop = service.onEvent((e) => events.push(e));
    const answer = (await startAb(request())) as { ok: true; abId: string; file: string; turns: number };
    expect(answer).toMatchObject({ ok: true, turns: 6 });
    expect(answer.file.startsWith(join(runsDir, 'ab-nccl-ab-'))).toBe(true);
    expect(answer.file.endsWith('.nccl-ab.json')).toBe(true);
    await expect.poll(() => events.find((e) => e.type === 'ab-end'), { timeout: 30_000 }).toBeDefined();
    stop();
    expect(events.filter((e) => e.type === 'ab-end')).toEqual([{ type: 'ab-end', abId: answer.abId, file: null, error: CPU_REFUSAL }]);
    expect(readdirSync(runsDir)).toEqual([]);
  });
});

describe('listAbs and openAb', () => {
  const ab = summarizeAb({
    scenario: 'ab',
    scenarioFile: null,
    createdAt: new Date('2026-11-27T00:00:00Z'),
    repeats: 1,
    paths: { A, B },
    runs: [],
  });

  it('lists the runs folder’s A/B files and opens one checked', async () => {
    const file = join(runsDir, 'one.nccl-ab.json');
    saveAb(file, ab);
    const listed = (await dispatch(service, { method: 'listAbs', params: {} })) as { path: string }[];
    expect(listed.map((l) => l.path)).toEqual([file]);
    expect(await dispatch(service, { method: 'openAb', params: { path: 'one.nccl-ab.json' } })).toEqual(ab);
  });

  it('says a bad A/B file in one line, named within the runs folder', async () => {
    writeFileSync(join(runsDir, 'bad.nccl-ab.json'), JSON.stringify({ ...ab, repeats: 0 }));
    await expect(dispatch(service, { method: 'openAb', params: { path: 'bad.nccl-ab.json' } })).rejects.toThrow(
      /^bad\.nccl-ab\.json: repeats: Too small: expected number to be >=1$/,
    );
  });

  it('refuses a file outside the runs folder', async () => {
    const outside = join(dir, 'outside.nccl-ab.json');
    saveAb(outside, ab);
    await expect(dispatch(service, { method: 'openAb', params: { path: outside } })).rejects.toThrow(/is outside the runs directory/);
  });
});
