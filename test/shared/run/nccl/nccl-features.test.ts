// The table of what an NCCL offers by version (read from NVIDIA's nccl.h.in, src/plugin and release
// notes at each minor release's first tag), and the version banner NCCL builds into its file.
import { describe, expect, it } from 'vitest';
import {
  featureText,
  labPluginInterfaceAt,
  NCCL_FEATURES,
  ncclFeaturesAt,
  ncclVersionCode,
  pluginInterfacesAt,
} from '../../../../src/shared/run/nccl/nccl-features';
import { findNcclBanner } from '../../../../src/shared/run/nccl/nccl-library';

const lit = (code: number) =>
  ncclFeaturesAt(code)
    .filter((f) => f.lit)
    .map((f) => f.feature.id);

describe('plug-in interfaces by NCCL version', () => {
  it('profiler: v1 from 2.23, v5 from 2.28, v6 only from 2.29', () => {
    expect(pluginInterfacesAt('profiler', ncclVersionCode(2, 22, 3))).toEqual([]);
    expect(pluginInterfacesAt('profiler', ncclVersionCode(2, 23, 4))).toEqual([1]);
    expect(pluginInterfacesAt('profiler', ncclVersionCode(2, 28, 9))).toEqual([1, 2, 3, 4, 5]);
    expect(pluginInterfacesAt('profiler', ncclVersionCode(2, 29, 2))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('tuner: v1 in 2.19 and 2.20 only, v4 from 2.24, v6 from 2.30', () => {
    expect(pluginInterfacesAt('tuner', ncclVersionCode(2, 20, 5))).toEqual([1]);
    expect(pluginInterfacesAt('tuner', ncclVersionCode(2, 21, 5))).toEqual([2]);
    expect(pluginInterfacesAt('tuner', ncclVersionCode(2, 24, 3))).toEqual([2, 3, 4]);
    expect(pluginInterfacesAt('tuner', ncclVersionCode(2, 30, 3))).toEqual([2, 3, 4, 5, 6]);
  });

  it("says which of the lab's plug-in interfaces NCCL takes: its newest of those it looks up", () => {
    expect(labPluginInterfaceAt('profiler', ncclVersionCode(2, 27, 7))).toBeNull();
    expect(labPluginInterfaceAt('profiler', ncclVersionCode(2, 28, 3))).toBe(5);
    expect(labPluginInterfaceAt('profiler', ncclVersionCode(2, 30, 4))).toBe(6);
    expect(labPluginInterfaceAt('tuner', ncclVersionCode(2, 23, 4))).toBeNull();
    expect(labPluginInterfaceAt('tuner', ncclVersionCode(2, 24, 3))).toBe(4);
    expect(labPluginInterfaceAt('tuner', ncclVersionCode(2, 30, 3))).toBe(6);
    expect(labPluginInterfaceAt('tuner', ncclVersionCode(2, 29, 7))).toBe(5);
  });
});

describe('features by NCCL version', () => {
  it('lights each feature from the version it came with', () => {
    expect(lit(ncclVersionCode(2, 23, 4))).toEqual(['split-config', 'buffer-registration']);
    expect(lit(ncclVersionCode(2, 24, 3))).toContain('ras');
    const at227 = lit(ncclVersionCode(2, 27, 3));
    expect(at227).toEqual(expect.arrayContaining(['cta-policy', 'window-registration', 'symmetric-kernels', 'comm-shrink']));
    expect(at227).not.toContain('copy-engine-collectives');
    expect(lit(ncclVersionCode(2, 28, 3))).toEqual(expect.arrayContaining(['copy-engine-collectives', 'alltoall-gather-scatter']));
    expect(lit(ncclVersionCode(2, 28, 9))).not.toContain('comm-grow');
    expect(lit(ncclVersionCode(2, 29, 2))).toEqual(expect.arrayContaining(['comm-grow', 'comm-revoke', 'one-sided']));
    expect(lit(ncclVersionCode(2, 30, 3))).toContain('comm-suspend');
  });

  it('never claims an unconfirmed feature, whatever the version', () => {
    // Every row is now read in NVIDIA's own sources (per-collective config at 2.31.2's nccl.h.in);
    // a row that only another page speaks of is listed, never lit.
    expect(NCCL_FEATURES.filter((f) => !f.confirmed)).toEqual([]);
    const guess = { id: 'guess', what: 'a feature one page speaks of', since: 23200, source: 'a page for 2.32.3', confirmed: false };
    expect(ncclFeaturesAt(ncclVersionCode(2, 99, 0), [guess])).toEqual([{ feature: guess, lit: false }]);
    expect(featureText(guess)).toBe('a feature one page speaks of (2.32, unconfirmed)');
    expect(lit(ncclVersionCode(2, 31, 2))).toContain('per-collective-config');
    expect(lit(ncclVersionCode(2, 30, 7))).not.toContain('per-collective-config');
  });

  it('names where every version was read', () => {
    for (const f of NCCL_FEATURES) expect(f.source, f.id).toMatch(/v2\.\d+\.\d+-1|2\.\d+\.\d+/);
    expect(featureText(NCCL_FEATURES.find((f) => f.id === 'ras')!)).toMatch(/ \(2\.24\)$/);
  });
});

describe("NCCL's version banner", () => {
  it('gives the version, its code and the CUDA NCCL was built for', () => {
    expect(findNcclBanner('\0junk\0NCCL version 2.28.3+cuda13.0\0more')).toEqual({
      banner: { version: '2.28.3', code: 22803, cuda: '13.0' },
      end: 34,
    });
    expect(findNcclBanner('NCCL version 2.31.0a7+cuda12.9')?.banner).toEqual({ version: '2.31.0a7', code: 23100, cuda: '12.9' });
  });

  it('is not found in text without one, nor in a format string', () => {
    expect(findNcclBanner('NCCL version %s')).toBeNull();
    expect(findNcclBanner('libnccl.so.2')).toBeNull();
  });
});
