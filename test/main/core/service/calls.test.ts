import { describe, expect, it } from 'vitest';
import { prepareFromCall } from '../../../../src/main/core/service/calls.js';
import { ScenarioFileError, type FileProblem } from '../../../../src/shared/plan/text.js';

const scenario = (backend: string) =>
  JSON.stringify({ version: 1, name: 'calls', backend, world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 8 }] });

describe('prepareFromCall', () => {
  it('reads the scenario, keeps its file, and takes its backend where the Run panel says auto', () => {
    const started = prepareFromCall({ text: scenario('cpu'), file: 'a.scenario.json', backend: 'auto', ranks: null }, (request) => request);
    expect(started.ok && started.prepared).toMatchObject({ scenarioFile: 'a.scenario.json', backend: 'cpu', ranks: undefined });
    expect(started.ok && started.prepared.loaded.scenario.name).toBe('calls');
  });

  it('lets the Run panel choose over the scenario, and passes its ranks on', () => {
    const started = prepareFromCall({ text: scenario('cpu'), file: null, backend: 'nccl', ranks: 4 }, (request) => request);
    expect(started.ok && started.prepared).toMatchObject({ scenarioFile: null, backend: 'nccl', ranks: 4 });
  });

  it('answers unsaved text that is no scenario with its problems, under the unsaved name', () => {
    const started = prepareFromCall({ text: '{"version": 1', file: null, backend: 'auto', ranks: null }, () => {
      throw new Error('not prepared');
    });
    expect(started.ok).toBe(false);
    expect(!started.ok && started.problems[0].file).toBe('untitled.scenario.json');
  });

  it('answers the problems preparing finds, and throws what is no scenario problem', () => {
    const problem: FileProblem = { file: 'a.scenario.json', path: 'world', line: 1, column: 1, message: 'too few ranks' };
    const refused = prepareFromCall({ text: scenario('cpu'), file: 'a.scenario.json', backend: 'auto', ranks: null }, () => {
      throw new ScenarioFileError([problem]);
    });
    expect(refused).toEqual({ ok: false, problems: [problem] });
    expect(() =>
      prepareFromCall({ text: scenario('cpu'), file: null, backend: 'auto', ranks: null }, () => {
        throw new Error('addon missing');
      }),
    ).toThrow('addon missing');
  });
});
