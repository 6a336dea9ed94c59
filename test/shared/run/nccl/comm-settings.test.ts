// What a step's NCCL settings and windows ask of the loaded NCCL, refused alike by every rank with the version needed.
import { describe, expect, it } from 'vitest';
import { commSettingRefusal, describeCommSetting, windowRefusal } from '../../../../src/shared/run/nccl/comm-settings';

describe("a step's NCCL settings against the loaded NCCL", () => {
  it('refuses each CTA policy below the NCCL that first has it, naming both versions', () => {
    expect(commSettingRefusal({ ctaPolicy: 'zero' }, 22803)).toBe(
      "NCCL's zero-SM policy (CTA policy zero, on window-registered buffers) needs NCCL 2.29.0 or later; this rank loaded NCCL 2.28.3",
    );
    expect(commSettingRefusal({ ctaPolicy: 'zero' }, 22902)).toBeNull();
    expect(commSettingRefusal({ ctaPolicy: 'efficiency' }, 22605)).toBe(
      "NCCL's CTA policy efficiency (ncclConfig_t.CTAPolicy) needs NCCL 2.27.0 or later; this rank loaded NCCL 2.26.5",
    );
    expect(commSettingRefusal({ ctaPolicy: 'efficiency' }, 22703)).toBeNull();
    expect(commSettingRefusal({ maxCTAs: 4 }, 21705)).toBe(
      'a communicator with NCCL settings of its own (at most 4 CTAs, by ncclCommSplit) needs NCCL 2.18.0 or later; this rank loaded NCCL 2.17.5',
    );
    expect(commSettingRefusal({}, 22000)).toBeNull();
    expect(describeCommSetting({})).toBe('NCCL defaults');
  });

  it('refuses symmetric windows below NCCL 2.27', () => {
    expect(windowRefusal(22605)).toBe(
      'symmetric windows ("registration": "window": ncclCommWindowRegister, which NCCL\'s symmetric kernels run on) need NCCL 2.27.0 or later; this rank loaded NCCL 2.26.5',
    );
    expect(windowRefusal(22700)).toBeNull();
    expect(windowRefusal(23007)).toBeNull();
  });
});
