// The JSON Schema of the scenario format, generated from the zod schema (the source of truth)
// for the editor's completion, hover docs and markers.
import { z } from 'zod';
import { scenarioSchema } from './schema.js';

export function scenarioJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any', target: 'draft-07' }),
    title: 'Collective Lab scenario',
  };
}
