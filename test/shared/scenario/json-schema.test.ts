import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { scenarioJsonSchema } from '../../../src/shared/scenario/json-schema';
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES, OBJECT_COLLECTIVES } from '../../../src/shared/ops';
import { markdownEnumDescriptions } from '../../../src/shared/ops/explain';

describe('generated JSON Schema', () => {
  it('matches the committed schemas/scenario.schema.json (run `npm run build` after changing the format)', () => {
    expect(JSON.parse(readFileSync('schemas/scenario.schema.json', 'utf8'))).toEqual(JSON.parse(JSON.stringify(scenarioJsonSchema())));
  });

  it('carries the docs an editor shows on hover', () => {
    const text = JSON.stringify(scenarioJsonSchema());
    expect(text).toContain('**all_reduce** — Every rank ends with the reduction');
    expect(text).toContain('Untimed iterations before the timed ones.');
  });

  it("explains each op in completion and hover with its descriptor's count and teaching text", () => {
    const text = JSON.stringify(scenarioJsonSchema());
    expect(text).toContain(JSON.stringify(markdownEnumDescriptions(COLLECTIVES)));
    expect(text).toContain(JSON.stringify(markdownEnumDescriptions(OBJECT_COLLECTIVES)));
    expect(text).toContain(JSON.stringify(markdownEnumDescriptions(['send', 'recv'])));
    expect(text).toContain(JSON.stringify(`*count:* ${COLLECTIVE_DESCRIPTORS.all_to_all.countMeans}.`).slice(1, -1));
  });
});
