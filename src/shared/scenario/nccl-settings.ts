// A scenario's NCCL settings: NCCL_* variables for its ranks, a compare variant's communicator
// (NCCL_ALGO/NCCL_PROTO, or maxCTAs and a CTA policy on a split), a sweep's CTA policy.
import { z } from 'zod';
import { LIMITS } from './limits.js';
import { RANK_ENV_VALUE, RANK_ENV_VALUE_CHARS, RANK_ENV_VALUE_EXPECTED, rankEnvKeyRefusal } from './rank-env.js';

/** NCCL's CTA policies (ncclConfig_t.CTAPolicy: NCCL_CTA_POLICY_DEFAULT, _EFFICIENCY, _ZERO). */
export const CTA_POLICIES = ['default', 'efficiency', 'zero'] as const;
/** A compare variant's NCCL settings: its communication runs on a communicator of its own. */
export const commSettingSchema = z
  .object({
    maxCTAs: z
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'At most this many CTAs per NCCL kernel, and so at most this many channels (send/recv included): fewer SMs held beside a GEMM, a slower transfer. Like NCCL_MAX_CTAS, for this variant alone.',
      ),
    ctaPolicy: z
      .enum(CTA_POLICIES)
      .optional()
      .describe(
        'NCCL\'s CTA policy (ncclConfig_t.CTAPolicy): "efficiency" uses as few CTAs as keep performance decent; "zero" (NCCL 2.29 or later) uses none where NCCL can, on window-registered buffers (the lab registers each operation\'s buffers); refused with the version needed on an older NCCL.',
      ),
  })
  .strict();
/** NCCL_ALGO / NCCL_PROTO values as NCCL parses them: names, lists, ^ to exclude, func: prefixes. */
const ncclListText = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_,;:^ ]+$/, 'NCCL_ALGO/NCCL_PROTO syntax: names separated by , or ; (^ excludes, func: limits)');
export const ncclChoiceSchema = z.object({ algo: ncclListText.optional(), proto: ncclListText.optional() }).strict();
/**
 * A compare variant's NCCL settings, each kind on a communicator of its own: algo/proto (made with
 * NCCL_ALGO/NCCL_PROTO set) or maxCTAs/ctaPolicy (split from the run's with an ncclConfig_t).
 */
export const variantNccl = commSettingSchema
  .extend(ncclChoiceSchema.shape)
  .strict()
  .describe(
    'nccl: this variant\'s communication runs on a communicator of its own. "algo"/"proto" (NCCL_ALGO/NCCL_PROTO syntax, e.g. "Ring" or "Tree", "LL", "LL128" or "Simple") make it with those variables set, so that variants compare NCCL\'s algorithms and protocols; "maxCTAs"/"ctaPolicy" split it from the run\'s (ncclCommSplit) with those settings. One kind per variant. cpu ranks ignore it.',
  );

/**
 * NCCL settings of a scenario: NCCL_* environment variables for its rank processes (kept in the
 * run record's environment). NVLink multicast stays off whatever a scenario says.
 */
export const ncclEnv = z
  .record(z.string(), z.string().max(RANK_ENV_VALUE_CHARS, RANK_ENV_VALUE_EXPECTED).regex(RANK_ENV_VALUE, RANK_ENV_VALUE_EXPECTED))
  .superRefine((e, ctx) => {
    const keys = Object.keys(e);
    if (keys.length > LIMITS.envSettings) ctx.addIssue({ code: 'custom', message: `expected at most ${LIMITS.envSettings} settings` });
    for (const k of keys.slice(0, LIMITS.envSettings + 1)) {
      const why = rankEnvKeyRefusal(k);
      if (why) ctx.addIssue({ code: 'custom', path: [k], message: why });
    }
  })
  .describe(
    'NCCL settings for this scenario\'s ranks, as environment variables: {"NCCL_ALGO": "Tree"}, {"NCCL_PROTO": "Simple"}, {"NCCL_P2P_DISABLE": "1"}, {"NCCL_CTA_POLICY": "1"} … They apply to the nccl backend (cpu ranks ignore them) and are kept in the run record.',
  );
