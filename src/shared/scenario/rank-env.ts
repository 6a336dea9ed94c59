// What a scenario (and so a plan, which may come over the wire from a core) may set in a rank
// process's environment: NCCL's own tuning variables, and nothing that loads code, names a file
// to read or write, or changes how the process starts. One rule for the schema, the core's
// forked ranks and `clab worker`: a key that passes here is safe to hand to NCCL.

/** An NCCL variable: NCCL_ and capitals, digits or _. */
const NCCL_KEY = /^NCCL_[A-Z0-9_]{1,60}$/;
/** Values: printable ASCII. */
export const RANK_ENV_VALUE = /^[\x20-\x7e]*$/;
export const RANK_ENV_VALUE_CHARS = 200;
export const RANK_ENV_VALUE_EXPECTED = `expected printable ASCII (at most ${RANK_ENV_VALUE_CHARS} characters)`;

/**
 * NCCL variables refused although they look like settings: each loads a library, reads or writes
 * a file of the process's user, or turns on what the lab keeps off.
 */
const REFUSED: readonly { test: (key: string) => boolean; why: string }[] = [
  { test: (k) => k === 'NCCL_NVLS_ENABLE', why: 'NCCL_NVLS_ENABLE stays 0 in every rank clab starts (NVLink multicast is off)' },
  {
    test: (k) => k.endsWith('_PLUGIN'),
    why: 'it names a library for NCCL to load (a plug-in): set it in the environment clab starts in, not in a scenario',
  },
  {
    test: (k) => k.endsWith('_FILE') || k.endsWith('_PATH'),
    why: 'it names a file NCCL reads or writes: set it in the environment clab starts in, not in a scenario',
  },
];

/** Why `key` may not be set in a rank's environment from a scenario or plan, or null when it may. */
export function rankEnvKeyRefusal(key: string): string | null {
  if (!NCCL_KEY.test(key)) return 'expected an NCCL setting such as "NCCL_ALGO" (NCCL_ and capitals, digits or _)';
  return REFUSED.find((r) => r.test(key))?.why ?? null;
}

/** Why `key=value` may not be set in a rank's environment, or null when it may. */
export function rankEnvRefusal(key: string, value: unknown): string | null {
  const refused = rankEnvKeyRefusal(key);
  if (refused) return refused;
  if (typeof value !== 'string' || value.length > RANK_ENV_VALUE_CHARS || !RANK_ENV_VALUE.test(value)) return RANK_ENV_VALUE_EXPECTED;
  return null;
}

export class RankEnvError extends Error {
  readonly code = 'CLAB_RANK_ENV';
}

/** The plan's settings, checked key by key; throws one line naming the first key refused. */
export function checkedRankEnv(env: Readonly<Record<string, unknown>> | undefined, limit = 64): Record<string, string> {
  const keys = Object.keys(env ?? {});
  if (keys.length > limit) throw new RankEnvError(`the plan sets ${keys.length} environment variables; at most ${limit} are allowed`);
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = env![key];
    const why = rankEnvRefusal(key, value);
    if (why) throw new RankEnvError(`the plan may not set ${JSON.stringify(key.slice(0, 80))} in a rank's environment: ${why}`);
    out[key] = value as string;
  }
  return out;
}
