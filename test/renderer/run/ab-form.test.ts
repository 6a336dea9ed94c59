// The run panel's NCCL A/B form: when Start A/B may be pressed, and the turns as their events say them.
import { describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../../src/shared/run/api/api';
import {
  AB_FIELDS,
  abFormProblem,
  abProgressWith,
  abTurnLine,
  scenarioBackend,
  type AbProgress,
} from '../../../src/renderer/src/run/ab-form';

const filled = { libraryA: '/opt/nccl-a/libnccl.so.2', libraryB: ' /opt/nccl-b/libnccl.so.2 ', repeats: '3' };

describe('the NCCL A/B form', () => {
  it('reads the backend a scenario names, and none from text that is not JSON yet', () => {
    expect(scenarioBackend('{"version":1,"backend":"nccl"}')).toBe('nccl');
    expect(scenarioBackend('{"version":1,"backend":"cpu"}')).toBe('cpu');
    expect(scenarioBackend('{"version":1}')).toBeNull();
    expect(scenarioBackend('{"version":1,')).toBeNull();
    expect(scenarioBackend('null')).toBeNull();
  });

  it('lets Start A/B be pressed only for an nccl scenario with both libraries and 1 to 50 repeats', () => {
    expect(abFormProblem(filled, 'nccl')).toBeNull();
    expect(abFormProblem(filled, 'cpu')).toMatch(/must name the nccl backend/);
    expect(abFormProblem(filled, null)).toMatch(/must name the nccl backend/);
    expect(abFormProblem(AB_FIELDS, 'nccl')).toMatch(/Enter A's and B's NCCL library/);
    expect(abFormProblem({ ...filled, libraryB: '   ' }, 'nccl')).toMatch(/Enter A's and B's NCCL library/);
    for (const repeats of ['0', '51', '2.5', '', 'x'])
      expect(abFormProblem({ ...filled, repeats }, 'nccl')).toBe('Repeats: a whole number from 1 to 50.');
    expect(abFormProblem({ ...filled, repeats: '50' }, 'nccl')).toBeNull();
  });

  it("lists its own A/B's turns as they come and keeps its end; another A/B's events change nothing", () => {
    const start: AbProgress = { abId: 'ab-1', file: '/runs/x.nccl-ab.json', total: 4, turns: [], end: null };
    const turn = (abId: string, done: number, side: 'A' | 'B'): ApiEvent => ({
      type: 'ab-turn',
      abId,
      repeat: Math.floor((done - 1) / 2),
      side,
      status: 'passed',
      record: null,
      done,
      total: 4,
    });
    let p = abProgressWith(start, turn('ab-1', 1, 'A'));
    p = abProgressWith(p, turn('ab-2', 1, 'A'));
    p = abProgressWith(p, turn('ab-1', 2, 'B'));
    expect(p.turns.map(abTurnLine)).toEqual(['1/4 repeat 1 A: passed', '2/4 repeat 1 B: passed']);
    expect(abProgressWith(p, { type: 'ab-end', abId: 'ab-2', file: null, error: 'stopped' }).end).toBeNull();
    const end = { type: 'ab-end', abId: 'ab-1', file: '/runs/x.nccl-ab.json', error: null } as const;
    expect(abProgressWith(p, end).end).toEqual(end);
  });
});
