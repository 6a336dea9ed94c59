// The JSON Schema of the scenario format, generated from the zod schema (the source of truth)
// for the editor's completion, hover docs and markers.
import { z } from 'zod';
import { orderOps } from '../ops/order.js';
import { scenarioSchema } from './schema.js';

type JsonSchemaNode = Record<string, unknown>;

const isNode = (x: unknown): x is JsonSchemaNode => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The values an `op` property schema allows, each with its Markdown doc (or ''). */
function opValues(op: JsonSchemaNode, branch: JsonSchemaNode): [string, string][] {
  if (typeof op.const === 'string') return [[op.const, typeof branch.description === 'string' ? branch.description : '']];
  if (!Array.isArray(op.enum)) return [];
  const docs = Array.isArray(op.markdownEnumDescriptions) ? (op.markdownEnumDescriptions as string[]) : [];
  return (op.enum as unknown[]).filter((v): v is string => typeof v === 'string').map((v, i) => [v, docs[i] ?? '']);
}

/**
 * A step is a `oneOf` of one object per kind of step, told apart by `op`. Where the step's
 * text matches no branch yet (`"op": ""`), the JSON language service keeps only the branches
 * that match the rest of the object best and offers their ops alone (6 of 29 on a fresh
 * step). So the step schema itself also names `op`, with every op of its branches (most used
 * first) and each op's doc: completion offers them all, and the hover shows the hovered op's.
 */
export function withStepOps(root: JsonSchemaNode): JsonSchemaNode {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    for (const v of Object.values(node)) visit(v);
    const branches = node.oneOf;
    if (!Array.isArray(branches) || branches.length < 2) return;
    const ops = new Map<string, string>();
    for (const b of branches) {
      const op = isNode(b) && isNode(b.properties) ? b.properties.op : undefined;
      if (!isNode(op) || !isNode(b)) return;
      for (const [value, doc] of opValues(op, b)) if (!ops.has(value)) ops.set(value, doc);
    }
    const ordered = orderOps([...ops.keys()]);
    node.type = 'object';
    node.properties = {
      op: {
        type: 'string',
        enum: ordered,
        markdownEnumDescriptions: ordered.map((op) => ops.get(op)),
      },
    };
  };
  visit(root);
  return root;
}

export function scenarioJsonSchema(): Record<string, unknown> {
  return withStepOps({
    ...z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any', target: 'draft-07' }),
    title: 'Collective Lab scenario',
  });
}
