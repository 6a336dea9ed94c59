// Generators of values near a schema's rules, and the properties every hand check
// (src/shared/run/rank/checked-array.ts) must hold against the schema it stands in for.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { z } from 'zod';

/** Values near every rule's edge, and of every wrong type. */
export const odd = fc.constantFrom<unknown>(
  undefined,
  null,
  NaN,
  Infinity,
  -Infinity,
  -1,
  -0,
  0.5,
  2 ** 53,
  '1',
  '',
  true,
  [],
  {},
  'timed',
);
export const number = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
export const int = fc.oneof(fc.integer(), fc.constantFrom(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, -0));
/** Plain objects, as JSON.parse makes them (fast-check makes some without a prototype unless told). */
export const plain = { noNullPrototype: true };

/** `o` with one key (a known one, or one the schema does not know) set to an odd value, or gone. */
export const mutated = (o: Record<string, unknown>, keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.tuple(fc.constantFrom(...keys, 'extra'), odd, fc.boolean()).map(([key, value, remove]) => {
    const copy = { ...o };
    if (remove) delete copy[key];
    else copy[key] = value;
    return copy;
  });

/** `o` as an object that is not plain: no prototype, or an inherited key. */
export const notPlain = (o: object): fc.Arbitrary<unknown> =>
  fc.constantFrom(Object.assign(Object.create(null) as object, o), Object.assign(Object.create({ inherited: true }) as object, o));

const issuesOf = (r: z.ZodSafeParseResult<unknown>) =>
  r.success ? [] : r.error.issues.map((i) => ({ code: i.code, path: i.path, message: i.message }));

/** The objects and arrays inside `x`, itself included. */
function objectsIn(x: unknown, found = new Set<object>()): Set<object> {
  if (typeof x === 'object' && x !== null && !found.has(x)) {
    found.add(x);
    for (const v of Object.values(x)) objectsIn(v, found);
  }
  return found;
}

/**
 * The two properties of a hand-checked array schema: it accepts exactly what `z.array(element)`
 * accepts, with the same value or the same issues; and what it copies by hand is an element the
 * schema accepts, copied as the schema copies it (equal, keys in the same order, nothing shared
 * with the input), while the generator reaches that case often.
 */
export function itStandsInForTheSchema<T>(o: {
  element: z.ZodType<T>;
  array: z.ZodType<T[], unknown>;
  byHand: (x: unknown) => T | null;
  valid: fc.Arbitrary<unknown>;
  broken: fc.Arbitrary<unknown>;
}): void {
  const bySchema = z.array(o.element);
  const arrays = fc.oneof(
    { arbitrary: fc.array(o.valid, { maxLength: 8 }), weight: 4 },
    { arbitrary: fc.array(fc.oneof({ arbitrary: o.valid, weight: 3 }, { arbitrary: o.broken, weight: 1 }), { maxLength: 8 }), weight: 4 },
    { arbitrary: odd, weight: 1 },
  );

  it('accepts exactly what the schema accepts, giving the same value or the same issues', () => {
    fc.assert(
      fc.property(arrays, (value) => {
        const fast = o.array.safeParse(value);
        const schema = bySchema.safeParse(value);
        expect(fast.success).toBe(schema.success);
        if (fast.success && schema.success) expect(fast.data).toStrictEqual(schema.data);
        expect(issuesOf(fast)).toEqual(issuesOf(schema));
      }),
      { numRuns: 3000 },
    );
  });

  it('copies by hand only what the schema accepts, as the schema copies it', () => {
    let byHand = 0;
    fc.assert(
      fc.property(fc.oneof(o.valid, o.broken, odd), (value) => {
        const copy = o.byHand(value);
        if (copy === null) return;
        byHand++;
        const schema = o.element.parse(value);
        expect(copy).toStrictEqual(schema);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(schema));
        const inInput = objectsIn(value);
        expect([...objectsIn(copy)].filter((x) => inInput.has(x))).toEqual([]);
      }),
      { numRuns: 5000 },
    );
    expect(byHand).toBeGreaterThan(1000);
  });
}
