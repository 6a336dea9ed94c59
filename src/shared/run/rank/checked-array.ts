// An array schema that checks its elements by hand where it can. A run record holds 100 000 events
// and thousands of per-rank results: zod going over each object field by field took most of the
// time a saved run took to open, more so in the page, where zod runs without its JIT. A valid
// element is checked by hand with the schema's rules and copied as the schema copies it (the
// schema's keys only, in its order; an optional key there when the element has it, even
// undefined); an element the hand check cannot vouch for (invalid, or of a form it does not know)
// goes to the schema, so the array's value and its issues (paths, messages, in order) are exactly
// those of `z.array(element)`.
import { z } from 'zod';

/** What zod takes for an object: anything of type object but null and arrays (its keys read as `x[key]`, inherited ones too). */
export const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

// z.number(): finite; .int(): a safe integer.
export const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);
export const isInt = (x: unknown): x is number => Number.isSafeInteger(x);
export const isString = (x: unknown): x is string => typeof x === 'string';

/**
 * `z.array(element)`, the same value and the same issues, where `byHand` gives the copy the schema
 * would give of an element it vouches for (and null for any other, which the schema checks).
 */
export function checkedArray<T>(element: z.ZodType<T>, byHand: (x: unknown) => T | null) {
  const bySchema = z.array(element);
  return z.unknown().transform((value, ctx): T[] => {
    if (!Array.isArray(value)) {
      ctx.issues.push(...(bySchema.safeParse(value).error?.issues as typeof ctx.issues));
      return z.NEVER;
    }
    const out = new Array<T>(value.length);
    let failed = false;
    for (let i = 0; i < value.length; i++) {
      const x: unknown = value[i];
      const copy = byHand(x);
      if (copy !== null) {
        out[i] = copy;
        continue;
      }
      const parsed = element.safeParse(x);
      if (parsed.success) out[i] = parsed.data;
      else {
        failed = true;
        for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, path: [i, ...issue.path] } as (typeof ctx.issues)[number]);
      }
    }
    return failed ? z.NEVER : out;
  });
}
