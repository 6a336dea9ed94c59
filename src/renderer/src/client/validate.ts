// Both doors validate what they receive with the contract's schemas, so a view only ever sees
// values of the declared types.
import { apiEventSchema, apiResultSchemas, type ApiEvent, type ApiMethod, type ApiResult } from '../../../shared/run/api/api.js';
import { unpackRecord, type Utf8 } from '../../../shared/run/record/packed-run.js';
import type { RunRecord } from '../../../shared/run/record/record.js';

const utf8: Utf8 = {
  encode: (text) => new TextEncoder().encode(text),
  decode: (bytes) => new TextDecoder('utf-8', { fatal: true }).decode(bytes),
};

export function parseResult<M extends ApiMethod>(method: M, value: unknown): ApiResult<M> {
  const parsed = apiResultSchemas[method].safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`the lab sent an invalid result for ${method}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data as ApiResult<M>;
}

/** The event, or null (reported on the console) when it does not match the contract. */
export function parseEvent(value: unknown): ApiEvent | null {
  const parsed = apiEventSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  console.error('ignored an invalid event from the lab', parsed.error.issues[0]);
  return null;
}

/** A saved run as both doors send it (shared/run/record/packed-run.ts), unpacked and checked as openRun's result is. */
export function parsePackedRun(packed: Uint8Array<ArrayBuffer>): RunRecord {
  try {
    return unpackRecord(packed, utf8);
  } catch (e) {
    throw new Error(`the lab sent an invalid result for openRun: ${(e as Error).message}`, { cause: e });
  }
}
