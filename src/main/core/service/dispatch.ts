// Every call from a door goes through here: the raw message is checked against the API contract
// before the lab sees it, and the lab's answer is checked before the door sends it back.
import type { z } from 'zod';
import { apiCallSchema, apiResultSchemas, type ApiCall, type ApiMethod } from '../../../shared/run/api/api.js';
import type { LabHandlers } from './lab-service.js';

const API_METHODS = Object.keys(apiResultSchemas) as ApiMethod[];

/** A call that breaks the contract; the message names the method and the parameter. */
export class ApiCallError extends Error {
  readonly code = 'CLAB_BAD_CALL';
}

function describeIssues(issues: z.core.$ZodIssue[]): string {
  return issues.map((i) => `${i.path.map(String).join('.') || '(call)'}: ${i.message}`).join('; ');
}

function parseCall(raw: unknown): ApiCall {
  const method = typeof raw === 'object' && raw !== null ? (raw as { method?: unknown }).method : undefined;
  if (typeof method !== 'string') throw new ApiCallError('invalid call: expected { method, params } with a method name');
  if (!(API_METHODS as string[]).includes(method))
    throw new ApiCallError(`unknown method "${method}"; the lab offers ${API_METHODS.join(', ')}`);
  const parsed = apiCallSchema.safeParse(raw);
  if (!parsed.success) throw new ApiCallError(`invalid call to ${method}: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

export async function dispatch(service: LabHandlers, raw: unknown): Promise<unknown> {
  const call = parseCall(raw);
  const handler = service[call.method] as (params: unknown) => Promise<unknown>;
  const value = await handler.call(service, call.params);
  const checked = apiResultSchemas[call.method].safeParse(value);
  if (!checked.success)
    throw new Error(`${call.method}: the lab's answer breaks the API contract: ${describeIssues(checked.error.issues)}`);
  return checked.data;
}
