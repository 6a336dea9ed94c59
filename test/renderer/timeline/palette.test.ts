// The timeline's op colours: every two told apart with normal vision and with each of the three
// dichromacies (simulated), and every name drawn on one readable.
import { describe, expect, it } from 'vitest';
import { OP_COLOURS, OPS } from '../../../src/renderer/src/timeline/ops';
import { CANVAS_COLOURS, OP_TEXT } from '../../../src/renderer/src/timeline/paint';
import { contrastRatio } from '../../../src/renderer/src/ui/contrast';
import { ciede2000, distance, VISIONS, type Vision } from '../ui/colour-vision';

/**
 * CIEDE2000 between any two op colours: about 2 is just noticeable side by side; these must be told
 * apart at a glance, in a legend and on slices next to each other (15 for normal vision).
 */
const MIN_DISTANCE: Record<Vision, number> = { normal: 15, protanopia: 7.5, deuteranopia: 7.5, tritanopia: 7.5 };

function closestPairs(vision: Vision): { pair: string; d: number }[] {
  const found: { pair: string; d: number }[] = [];
  for (let i = 0; i < OP_COLOURS.length; i++)
    for (let j = i + 1; j < OP_COLOURS.length; j++)
      found.push({ pair: `${OPS[i]} ${OP_COLOURS[i]} / ${OPS[j]} ${OP_COLOURS[j]}`, d: distance(OP_COLOURS[i], OP_COLOURS[j], vision) });
  return found.sort((a, b) => a.d - b.d);
}

describe('op colours', () => {
  it('has one colour per op, each different', () => {
    expect(OP_COLOURS).toHaveLength(OPS.length);
    expect(new Set(OP_COLOURS).size).toBe(OPS.length);
  });

  for (const vision of VISIONS) {
    it(`tells every two ops apart with ${vision} vision (CIEDE2000 >= ${MIN_DISTANCE[vision]})`, () => {
      const tooClose = closestPairs(vision).filter((p) => p.d < MIN_DISTANCE[vision]);
      expect(tooClose.map((p) => `${p.pair}: ${p.d.toFixed(2)}`)).toEqual([]);
    });
  }

  it('stands every op colour clear of the canvas background in both themes (CIEDE2000 >= 20)', () => {
    for (const [scheme, { background }] of Object.entries(CANVAS_COLOURS))
      OP_COLOURS.forEach((colour, i) =>
        expect(distance(colour, background, 'normal'), `${OPS[i]} on ${scheme}`).toBeGreaterThanOrEqual(20),
      );
  });

  it('draws an op name on its colour with at least 4.5:1 contrast', () => {
    OP_COLOURS.forEach((colour, i) => expect(contrastRatio(colour, OP_TEXT[i]), OPS[i]).toBeGreaterThanOrEqual(4.5));
  });

  it('computes CIEDE2000 as Sharma, Wu and Dalal publish it', () => {
    expect(ciede2000([50, 2.6772, -79.7751], [50, 0, -82.7485])).toBeCloseTo(2.0425, 4);
    expect(ciede2000([50, 2.5, 0], [73, 25, -18])).toBeCloseTo(27.1492, 4);
    expect(ciede2000([90.8027, -2.0831, 1.441], [91.1528, -1.6435, 0.0447])).toBeCloseTo(1.4441, 4);
  });

  it('simulates dichromacy: a red and a green far apart for normal vision come close with protanopia and deuteranopia', () => {
    const [red, green] = ['#d62728', '#2ca02c'];
    expect(distance(red, green, 'normal')).toBeGreaterThan(40);
    expect(distance(red, green, 'protanopia')).toBeLessThan(distance(red, green, 'normal') / 2);
    expect(distance(red, green, 'deuteranopia')).toBeLessThan(distance(red, green, 'normal') / 2);
  });
});
