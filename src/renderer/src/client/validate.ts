// Both doors validate what they receive with the contract's schemas, so a view only ever sees
// values of the declared types.
import { apiEventSchema, apiResultSchemas, type ApiEvent, type ApiMethod, type ApiResult } from '../../../shared/run/api.js';

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
