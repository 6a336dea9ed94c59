import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scenarioJsonSchema } from '../../../src/shared/scenario/json-schema';

describe('generated JSON Schema', () => {
  it('matches the committed schemas/scenario.schema.json (run `npm run build` after changing the format)', () => {
    expect(JSON.parse(readFileSync('schemas/scenario.schema.json', 'utf8'))).toEqual(JSON.parse(JSON.stringify(scenarioJsonSchema())));
  });

  it('carries the docs an editor shows on hover', () => {
    const text = JSON.stringify(scenarioJsonSchema());
    expect(text).toContain('all_reduce: Every rank ends with the reduction');
    expect(text).toContain('Untimed iterations before the timed ones.');
  });
});
