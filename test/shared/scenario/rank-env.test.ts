// What a scenario, and so a plan from a core, may set in a rank's environment: one table, read by
// the scenario schema, by the core before it forks ranks (LabRun), and by `clab worker` (the same
// checkedRankEnv).
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../src/main/core/run/run';
import { compilePlan } from '../../../src/shared/plan/compile';
import { checkedRankEnv, rankEnvRefusal } from '../../../src/shared/scenario/rank-env';
import { scenarioSchema } from '../../../src/shared/scenario/schema';

/** key, value, and the refusal (a part of it), or null where it is allowed. */
const TABLE: [string, string, string | null][] = [
  ['NCCL_ALGO', 'Ring', null],
  ['NCCL_PROTO', 'Simple', null],
  ['NCCL_DEBUG', 'INFO', null],
  ['NCCL_DEBUG_SUBSYS', 'INIT,COLL', null],
  ['NCCL_P2P_DISABLE', '1', null],
  ['NCCL_SOCKET_IFNAME', 'eth0', null],
  ['NCCL_NET', 'Socket', null],
  ['NCCL_CTA_POLICY', '1', null],
  ['NODE_OPTIONS', '--require /tmp/x.js', 'expected an NCCL setting'],
  ['LD_PRELOAD', '/tmp/x.so', 'expected an NCCL setting'],
  ['LD_LIBRARY_PATH', '/tmp', 'expected an NCCL setting'],
  ['PATH', '/tmp', 'expected an NCCL setting'],
  ['CLAB_NCCL_LIBRARY', '/tmp/libnccl.so', 'expected an NCCL setting'],
  ['nccl_algo', 'Ring', 'expected an NCCL setting'],
  ['NCCL_NET_PLUGIN', '/tmp/x.so', 'names a library for NCCL to load'],
  ['NCCL_TUNER_PLUGIN', 'x', 'names a library for NCCL to load'],
  ['NCCL_PROFILER_PLUGIN', 'x', 'names a library for NCCL to load'],
  ['NCCL_ENV_PLUGIN', 'x', 'names a library for NCCL to load'],
  ['NCCL_DEBUG_FILE', '/root/.bashrc', 'names a file NCCL reads or writes'],
  ['NCCL_TOPO_FILE', '/etc/shadow', 'names a file NCCL reads or writes'],
  ['NCCL_TOPO_DUMP_FILE', '/tmp/t', 'names a file NCCL reads or writes'],
  ['NCCL_GRAPH_DUMP_FILE', '/tmp/g', 'names a file NCCL reads or writes'],
  ['NCCL_CONF_FILE', '/tmp/nccl.conf', 'names a file NCCL reads or writes'],
  ['NCCL_NVLS_ENABLE', '1', 'NVLink multicast is off'],
  ['NCCL_ALGO', 'Ring\n', 'expected printable ASCII'],
  ['NCCL_ALGO', 'x'.repeat(201), 'expected printable ASCII'],
];

describe("a rank's environment from a plan", () => {
  it.each(TABLE)('%s=%s', (key, value, refusal) => {
    const why = rankEnvRefusal(key, value);
    const schema = scenarioSchema.safeParse({
      version: 1,
      name: 'e',
      world: { ranks: 1 },
      env: { [key]: value },
      steps: [{ op: 'barrier' }],
    });
    const plan = {
      ...compilePlan(scenarioSchema.parse({ version: 1, name: 'e', world: { ranks: 1 }, steps: [{ op: 'barrier' }] })),
      env: { [key]: value },
    };
    const forked = () => new LabRun({ plan, backend: 'cpu', scenario: {}, scenarioFile: null });
    if (refusal === null) {
      expect(why).toBeNull();
      expect(schema.success).toBe(true);
      expect(checkedRankEnv({ [key]: value })).toEqual({ [key]: value });
      expect(forked).not.toThrow();
    } else {
      expect(why).toContain(refusal);
      expect(schema.success).toBe(false);
      expect(schema.error?.issues[0].message).toContain(refusal);
      expect(() => checkedRankEnv({ [key]: value })).toThrow(`the plan may not set ${JSON.stringify(key)} in a rank's environment: ${why}`);
      expect(forked).toThrow(`the plan may not set ${JSON.stringify(key)}`);
    }
  });

  it('refuses a plan of too many settings, and a value that is not text', () => {
    expect(() => checkedRankEnv(Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`NCCL_X${i}`, '1'])))).toThrow(
      'the plan sets 65 environment variables; at most 64 are allowed',
    );
    expect(() => checkedRankEnv({ NCCL_ALGO: 1 })).toThrow('expected printable ASCII');
  });
});
