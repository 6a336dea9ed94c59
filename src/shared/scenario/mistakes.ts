// Deliberate mistakes in a scenario (ranks told to do different things, a result read from the
// wrong place) are valid: the gallery in scenarios/mistakes/ is made of them. Each one is a
// warning, so that validate and the editor point at it and a run says it first, but refuses nothing.
import type { JsonPath } from './json-path.js';
import type { BasicStep, Scenario } from './schema.js';

export interface ScenarioWarning {
  path: JsonPath;
  message: string;
}

const show = (v: unknown) => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v));

function stepWarnings(step: BasicStep, path: JsonPath): ScenarioWarning[] {
  const found: ScenarioWarning[] = [];
  if ((step.op === 'send' || step.op === 'recv' || 'count' in step) && 'perRank' in step && step.perRank) {
    const base = step as unknown as Record<string, unknown>;
    const what = Object.entries(step.perRank).map(([rank, override]) => {
      const { skip, ...fields } = override as Record<string, unknown> & { skip?: boolean };
      if (skip) return `rank ${rank} skips it`;
      const changes = Object.entries(fields).map(
        ([k, v]) => `${k} ${show(v)}${base[k] === undefined ? '' : ` instead of ${show(base[k])}`}`,
      );
      return `rank ${rank} uses ${changes.join(', ') || 'the same values'}`;
    });
    const expectation =
      'expect' in step && step.expect === 'failure'
        ? 'the step is expected to fail'
        : 'its result cannot be checked: add "expect": "failure"';
    found.push({ path: [...path, 'perRank'], message: `the ranks disagree on purpose: ${what.join('; ')}; ${expectation}` });
  }
  if ('read' in step && step.read === 'rank-slice') {
    found.push({
      path: [...path, 'read'],
      message: `every rank but 0 reads a slice of its output buffer that ${step.op} never writes (it writes the first ${step.count} elements only): a deliberate mistake`,
    });
  }
  return found;
}

/** Every deliberate mistake in the scenario, at its JSON path, with what the ranks will do. */
export function scenarioWarnings(scenario: Scenario): ScenarioWarning[] {
  return scenario.steps.flatMap((step, i) => {
    const path: JsonPath = ['steps', i];
    if (step.op === 'compare') {
      return step.variants.flatMap((v, vi) => v.steps.flatMap((s, si) => stepWarnings(s, [...path, 'variants', vi, 'steps', si])));
    }
    if (step.op === 'sweep' || step.op === 'pairs') return [];
    return stepWarnings(step, path);
  });
}
