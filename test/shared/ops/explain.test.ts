import { describe, expect, it } from 'vitest';
import { COLLECTIVE_DESCRIPTORS, COLLECTIVES, OBJECT_COLLECTIVES, P2P_TEACHING } from '../../../src/shared/ops';
import { EXPLAINED_OPS, explainOp, explanationMarkdown, markdownEnumDescriptions } from '../../../src/shared/ops/explain';

describe('explaining an operation', () => {
  it('explains every op a scenario can name, and nothing else', () => {
    expect(EXPLAINED_OPS).toEqual([...COLLECTIVES, ...OBJECT_COLLECTIVES, 'send', 'recv']);
    for (const op of EXPLAINED_OPS) expect(explainOp(op)?.teaching.length).toBeGreaterThan(20);
    expect(explainOp('all_reduce_plus')).toBeNull();
  });

  it("reads a collective's summary, count, busbw factor and teaching from its descriptor", () => {
    const d = COLLECTIVE_DESCRIPTORS.reduce_scatter;
    expect(explainOp('reduce_scatter')).toEqual({
      op: 'reduce_scatter',
      summary: d.summary,
      countMeans: d.countMeans,
      teaching: d.teaching,
      busFactors: [
        { world: 2, factor: 0.5 },
        { world: 4, factor: 0.75 },
        { world: 8, factor: 0.875 },
      ],
    });
  });

  it('gives send/recv a factor of 1 and object collectives no count or bandwidth', () => {
    expect(explainOp('recv')).toMatchObject({
      teaching: P2P_TEACHING,
      busFactors: [
        { world: 2, factor: 1 },
        { world: 4, factor: 1 },
        { world: 8, factor: 1 },
      ],
    });
    expect(explainOp('scatter_object')).toMatchObject({ countMeans: null, busFactors: null });
  });

  it('writes Markdown with every part, one description per enum value in order', () => {
    const md = explanationMarkdown(explainOp('all_reduce')!);
    expect(md).toContain('**all_reduce** — Every rank ends with the reduction');
    expect(md).toContain(`*count:* ${COLLECTIVE_DESCRIPTORS.all_reduce.countMeans}.`);
    expect(md).toContain('*busbw* = algbw × 1 at 2 ranks, 1.5 at 4, 1.75 at 8.');
    expect(md).toContain(COLLECTIVE_DESCRIPTORS.all_reduce.teaching);
    expect(markdownEnumDescriptions(['gather_object', 'send'])).toEqual([
      explanationMarkdown(explainOp('gather_object')!),
      explanationMarkdown(explainOp('send')!),
    ]);
    expect(markdownEnumDescriptions(['gather_object'])[0]).not.toContain('*count:*');
  });
});
