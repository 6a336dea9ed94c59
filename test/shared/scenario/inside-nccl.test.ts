// A scenario asks to see inside NCCL ("insideNccl": true): the schema takes and describes the
// field, the plan carries it to every rank, the rank decides with CLAB_NCCL_PROFILER over it, and
// a record of a run that did not ask says how to ask.
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../../src/shared/plan/compile';
import { parseMessage, coreToWorkerSchema, PROTOCOL_VERSION } from '../../../src/shared/run/rank/protocol';
import { INSIDE_NCCL_FORCED_OFF, INSIDE_NCCL_NOT_ASKED, insideNcclChoice, insideNcclHint } from '../../../src/shared/run/nccl/inside-nccl';
import { scenarioJsonSchema } from '../../../src/shared/scenario/json-schema';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

const base = { version: 1, name: 'inside', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] };

describe('"insideNccl" in a scenario', () => {
  it('takes true or false, and names the field and what was expected otherwise', () => {
    expect(scenarioSchema.parse({ ...base, insideNccl: true }).insideNccl).toBe(true);
    expect(scenarioSchema.parse({ ...base, insideNccl: false }).insideNccl).toBe(false);
    const wrong = scenarioSchema.safeParse({ ...base, insideNccl: 'yes' });
    expect(wrong.success).toBe(false);
    expect(wrong.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['insideNccl', expect.stringMatching(/expected boolean/)],
    ]);
  });

  it("is described in the editor's JSON schema: what it shows, that it is off by default, and the variable over it", () => {
    const field = (scenarioJsonSchema().properties as Record<string, { type?: string; description?: string }>).insideNccl;
    expect(field.type).toBe('boolean');
    expect(field.description).toMatch(/algorithm, protocol and channels/);
    expect(field.description).toMatch(/Off by default/);
    expect(field.description).toMatch(/CLAB_NCCL_PROFILER=1 or 0/);
  });

  it('reaches every rank in the plan of the start frame, and is absent where the scenario does not ask', () => {
    const start = (scenario: object) => {
      const plan = compilePlan(scenarioSchema.parse(scenario));
      const frame = { type: 'start', v: PROTOCOL_VERSION, runId: 'r', rank: 1, backend: 'nccl', plan };
      const received = parseMessage(coreToWorkerSchema, JSON.parse(JSON.stringify(frame)), 'the core');
      return received.type === 'start' ? received.plan.insideNccl : 'not a start frame';
    };
    expect(start({ ...base, insideNccl: true })).toBe(true);
    expect(start(base)).toBeUndefined();
    expect(start({ ...base, insideNccl: false })).toBeUndefined();
  });
});

describe('whether a rank loads the plug-ins', () => {
  it('loads them where the scenario asks or CLAB_NCCL_PROFILER=1, never with CLAB_NCCL_PROFILER=0', () => {
    const table = [false, true].flatMap((asked) =>
      [undefined, '0', '1'].map((forced) => [asked, forced ?? 'unset', insideNcclChoice(asked, forced).load]),
    );
    expect(table).toEqual([
      [false, 'unset', false],
      [false, '0', false],
      [false, '1', true],
      [true, 'unset', true],
      [true, '0', false],
      [true, '1', true],
    ]);
  });

  it('says why not in plain words, with how to ask', () => {
    expect(insideNcclChoice(false, undefined).why).toBe(
      'NCCL\'s algorithm, protocol and channels not recorded: the scenario does not ask to see inside NCCL (add "insideNccl": true to it, or set CLAB_NCCL_PROFILER=1 where clab starts)',
    );
    expect(insideNcclChoice(true, '0').why).toBe(INSIDE_NCCL_FORCED_OFF);
    expect(insideNcclChoice(false, 'on').why).toBe(`${INSIDE_NCCL_NOT_ASKED} (CLAB_NCCL_PROFILER="on" is neither 0 nor 1: ignored)`);
  });
});

describe("a record's hint", () => {
  const record = (backend: string, insideNccl: boolean | undefined, nccl: unknown) => ({
    environment: { backend },
    plan: insideNccl === undefined ? {} : { insideNccl },
    steps: [{ action: { kind: 'compute' } }, { action: { kind: 'collective' }, nccl }],
  });

  it('says how to ask where an nccl run did not, and no step says what NCCL chose', () => {
    expect(insideNcclHint(record('nccl', undefined, undefined))).toBe(INSIDE_NCCL_NOT_ASKED);
  });

  it('is absent where the scenario asked, the ranks were cpu, a step says what NCCL chose (CLAB_NCCL_PROFILER=1), or no step calls NCCL', () => {
    expect(insideNcclHint(record('nccl', true, undefined))).toBeNull();
    expect(insideNcclHint(record('cpu', undefined, undefined))).toBeNull();
    expect(insideNcclHint(record('nccl', undefined, { algo: { RING: 1 } }))).toBeNull();
    expect(insideNcclHint({ ...record('nccl', undefined, undefined), steps: [{ action: { kind: 'compute' } }] })).toBeNull();
  });
});
