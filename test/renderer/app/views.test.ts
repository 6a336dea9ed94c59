// The side pane's list of views, as the shell reads it: tabs in order with their own ids, one view
// per moment, and the steps one view may open in another.
import { describe, expect, it } from 'vitest';
import { stepViewsOf, viewAt } from '../../../src/renderer/src/app/useViewTabs';
import { VIEWS } from '../../../src/renderer/src/app/views';
import { compileLoaded, parseScenarioText } from '../../../src/shared/plan/text';

const plan = compileLoaded(
  parseScenarioText(
    JSON.stringify({
      version: 1,
      name: 'views',
      world: { ranks: 2 },
      steps: [{ op: 'all_reduce', count: 4 }, { op: 'barrier' }],
    }),
    'views.scenario.json',
  ),
);

describe('the list of views', () => {
  it("gives each view its own id (its tab's test id) and a label, the log first (shown at the start)", () => {
    const ids = VIEWS.map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(VIEWS.every((v) => v.label.length > 0)).toBe(true);
    // A new view may come anywhere after the log; these keep their order.
    expect(ids.filter((id) => ['log', 'results', 'timeline', 'learn', 'runs'].includes(id))).toEqual([
      'log',
      'results',
      'timeline',
      'learn',
      'runs',
    ]);
    expect(ids[0]).toBe('log');
  });

  it('brings one view forward at each moment: the log when a run starts, Learn in step mode, Results for a record', () => {
    expect(viewAt(VIEWS, 'run-started')?.id).toBe('log');
    expect(viewAt(VIEWS, 'step-run-started')?.id).toBe('learn');
    expect(viewAt(VIEWS, 'record')?.id).toBe('results');
  });

  it('offers a collective step to Learn (what moved where), a barrier to no view', () => {
    expect(stepViewsOf(VIEWS, plan.steps[0])).toEqual([{ id: 'learn', label: 'what moved where' }]);
    expect(stepViewsOf(VIEWS, plan.steps[1])).toEqual([]);
  });
});
