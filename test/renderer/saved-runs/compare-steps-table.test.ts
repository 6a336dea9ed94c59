// The steps table both comparisons share: step, op and size first, each view's columns after, the
// note only under a table, and one line in place of it where the two have no step in common.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { CompareStepsTable, SideHeader, StepCells } from '../../../src/renderer/src/saved-runs/CompareStepsTable';

interface Step {
  label: string;
  bytes: number;
}
const Row = ({ step }: { step: Step }) =>
  createElement('tr', null, createElement(StepCells, { name: step.label, op: 'all_reduce', bytes: step.bytes }));
const table = (steps: Step[]) =>
  renderToStaticMarkup(
    createElement(CompareStepsTable<Step>, {
      testId: 'compare-steps',
      what: 'runs',
      steps,
      Row,
      columns: createElement(SideHeader, { name: 'time A', unit: 'µs' }),
      note: createElement('p', { className: 'compare-note' }, 'the note'),
    }),
  );

describe('the comparisons’ steps table', () => {
  it('heads step, op and size, then the view’s columns with their units, a row per step and the note under it', () => {
    const html = table([
      { label: 'big', bytes: 1 << 20 },
      { label: 'small', bytes: 1024 },
    ]);
    const heads = [...html.matchAll(/<th(?: [^>]*)?>(.*?)<\/th>/g)].map((m) => m[1]);
    expect(heads).toEqual(['step', 'op', 'size', 'time A<br/><span class="unit">(µs)</span>']);
    expect([...html.matchAll(/<td class="left">([^<]*)<\/td><td class="left">/g)].map((m) => m[1])).toEqual(['big', 'small']);
    expect(html).toContain('data-testid="compare-steps"');
    expect(html.endsWith('<p class="compare-note">the note</p>')).toBe(true);
  });

  it('says the two have no step in common, naming what they are, in place of the table and its note', () => {
    expect(table([])).toBe('<p class="empty">The two runs have no step in common (matched by label, op and size).</p>');
  });
});
