import { describe, expect, it } from 'vitest';
import { compileLoaded, parseScenarioText } from '../../../src/shared/plan/text';

const text = (steps: unknown[]) => JSON.stringify({ version: 1, name: 't', world: { ranks: 2 }, steps }, null, 2);

describe('deliberate mistakes are warnings', () => {
  it('perRank is a warning at its key saying what each rank does, and the scenario still compiles', () => {
    const loaded = parseScenarioText(
      text([
        { op: 'all_reduce', count: 3 },
        { op: 'broadcast', count: 3, perRank: { 1: { op: 'all_reduce', count: 4 } }, expect: 'failure' },
      ]),
      'm.scenario.json',
    );
    expect(loaded.warnings).toEqual([
      expect.objectContaining({
        severity: 'warning',
        path: 'steps[1].perRank',
        line: 15,
        message:
          'the ranks disagree on purpose: rank 1 uses op "all_reduce" instead of "broadcast", count 4 instead of 3; the step is expected to fail',
      }),
    ]);
    expect(compileLoaded(loaded).steps).toHaveLength(2);
  });

  it('a step whose ranks disagree without "expect": "failure" is told that it cannot be checked', () => {
    const { warnings } = parseScenarioText(
      text([{ op: 'send', from: 0, to: 1, count: 3, perRank: { 1: { skip: true } } }]),
      'm.scenario.json',
    );
    expect(warnings.map((w) => w.message)).toEqual([
      'the ranks disagree on purpose: rank 1 skips it; its result cannot be checked: add "expect": "failure"',
    ]);
  });

  it('read "rank-slice" is a warning; so are mistakes inside a compare variant', () => {
    const { warnings } = parseScenarioText(
      text([
        { op: 'reduce_scatter', count: 3, read: 'rank-slice', expect: 'failure' },
        {
          op: 'compare',
          variants: [
            { name: 'a', steps: [{ op: 'all_reduce', count: 3 }] },
            { name: 'b', steps: [{ op: 'all_reduce', count: 3, perRank: { 0: { redop: 'max' } } }] },
          ],
        },
      ]),
      'm.scenario.json',
    );
    expect(warnings.map((w) => w.path)).toEqual(['steps[0].read', 'steps[1].variants[1].steps[0].perRank']);
    expect(warnings[0].message).toContain('every rank but 0 reads a slice of its output buffer that reduce_scatter never writes');
  });

  it('a scenario without mistakes has no warnings', () => {
    expect(parseScenarioText(text([{ op: 'all_reduce', count: 3 }]), 'm.scenario.json').warnings).toEqual([]);
  });
});
