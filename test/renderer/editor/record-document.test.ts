// A saved run's scenario opened in the editor (a replay): its own name and text, and a note rather
// than an error when the machine lacks the backend it was recorded on.
import { describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../../src/shared/run/api/api';
import { recordDocument, replayBackendNote } from '../../../src/renderer/src/editor/document';

const text = '{\n  "version": 1, "name": "All-in-one collectives",\n  "world": { "ranks": 2 }\n}\n';
const scenario = { version: 1, name: 'All-in-one collectives', world: { ranks: 2 } };
const from = '/runs/all-in-one-collectives-2026-11-25T00-00-00-000Z-a1b2c3.run.json';
const environment = { backend: 'nccl' } as never;

const machine = (nccl: boolean): MachineInfo => ({
  host: 'h',
  cpus: 2,
  backends: { cpu: { available: true }, nccl: nccl ? { available: true } : { available: false, reason: 'no GPU' } },
  gpus: [],
  maxCpuRanks: 8,
  fileDialogs: false,
});

describe("a replay's scenario", () => {
  it('keeps the file name it ran from and its text as written, layout and all', () => {
    const doc = recordDocument(
      { scenario, scenarioFile: '/home/me/scenarios/all-in-one.scenario.json', scenarioText: text, environment },
      from,
    );
    expect(doc).toEqual({ key: `run:${from}`, name: 'all-in-one.scenario.json', path: null, savedText: text, recordedOn: 'nccl' });
  });

  it("is named after the scenario's title, not the run's id, when the record has no file", () => {
    const doc = recordDocument({ scenario: { ...scenario, name: 'ring / tree: LL?' }, scenarioFile: null, environment }, from);
    expect(doc.name).toBe('ring - tree- LL-.scenario.json');
    expect(recordDocument({ scenario, scenarioFile: null, environment }, from).name).toBe('All-in-one collectives.scenario.json');
    expect(recordDocument({ scenario: {}, scenarioFile: null, environment }, from).name).toBe(
      'all-in-one-collectives-2026-11-25T00-00-00-000Z-a1b2c3.scenario.json',
    );
  });

  it('opens an older record (no text kept) as its scenario formatted', () => {
    expect(recordDocument({ scenario, scenarioFile: 'all-in-one.scenario.json', environment }, from).savedText).toBe(
      `${JSON.stringify(scenario, null, 2)}\n`,
    );
  });

  it('notes, rather than refuses, a backend the machine lacks', () => {
    expect(replayBackendNote('nccl', machine(false))).toBe(
      'recorded on nccl; this machine has cpu only — replay shows the record, re-running needs a GPU',
    );
    expect(replayBackendNote('nccl', machine(true))).toBeNull();
    expect(replayBackendNote('cpu', machine(false))).toBeNull();
    expect(replayBackendNote(undefined, machine(false))).toBeNull();
    expect(replayBackendNote('nccl', null)).toBeNull();
  });
});
