// A compare variant's or sweep's NCCL settings (`nccl`, `ctaPolicy`) and a step's symmetric windows
// (`registration`): what each asks of the loaded NCCL, said the same way by every rank before any
// call, so that a refused step fails alike everywhere and the run goes on.
import type { CommSetting } from '../../plan/types.js';

/** ncclCommSplit with a config: settings per variant at all. */
export const SPLIT_SINCE = 21800;
/** ncclConfig_t.CTAPolicy (default, efficiency). */
export const CTA_POLICY_SINCE = 22700;
/** NCCL_CTA_POLICY_ZERO on send/recv and collectives (window-registered buffers). */
export const ZERO_SM_SINCE = 22900;
/** ncclCommWindowRegister with NCCL_WIN_COLL_SYMMETRIC, and the symmetric kernels that run on such windows. */
export const WINDOW_SINCE = 22700;

/** NCCL's version code as text: 22803 → "2.28.3" (codes from 2.9 on: major × 10000 + minor × 100 + patch). */
export function ncclVersionText(code: number): string {
  return code >= 20900
    ? `${Math.floor(code / 10000)}.${Math.floor((code % 10000) / 100)}.${code % 100}`
    : `${Math.floor(code / 1000)}.${Math.floor((code % 1000) / 100)}.${code % 100}`;
}

/** The setting as a learner reads it: "at most 4 CTAs, CTA policy zero". */
export function describeCommSetting(s: CommSetting): string {
  return (
    [
      s.maxCTAs !== undefined ? `at most ${s.maxCTAs} CTA${s.maxCTAs === 1 ? '' : 's'}` : null,
      s.ctaPolicy ? `CTA policy ${s.ctaPolicy}` : null,
    ]
      .filter((p) => p !== null)
      .join(', ') || 'NCCL defaults'
  );
}

/** Why the loaded NCCL (`ncclVersion`, its code) cannot run with `setting`, or null where it can. */
export function commSettingRefusal(setting: CommSetting, ncclVersion: number): string | null {
  const needs = setting.ctaPolicy === 'zero' ? ZERO_SM_SINCE : setting.ctaPolicy ? CTA_POLICY_SINCE : SPLIT_SINCE;
  if (ncclVersion >= needs) return null;
  const what =
    setting.ctaPolicy === 'zero'
      ? "NCCL's zero-SM policy (CTA policy zero, on window-registered buffers)"
      : setting.ctaPolicy
        ? `NCCL's CTA policy ${setting.ctaPolicy} (ncclConfig_t.CTAPolicy)`
        : `a communicator with NCCL settings of its own (${describeCommSetting(setting)}, by ncclCommSplit)`;
  return `${what} needs NCCL ${ncclVersionText(needs)} or later; this rank loaded NCCL ${ncclVersionText(ncclVersion)}`;
}

/** Why the loaded NCCL (`ncclVersion`) cannot register a step's buffers as symmetric windows, or null where it can. */
export function windowRefusal(ncclVersion: number): string | null {
  if (ncclVersion >= WINDOW_SINCE) return null;
  return `symmetric windows ("registration": "window": ncclCommWindowRegister, which NCCL's symmetric kernels run on) need NCCL ${ncclVersionText(WINDOW_SINCE)} or later; this rank loaded NCCL ${ncclVersionText(ncclVersion)}`;
}
