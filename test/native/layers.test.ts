// The native side's one layering rule (STYLE.md: only the binding files know the JS engine):
// napi.h, and binding.h which brings it, are included by the binding files alone (and by the
// test-only addon, test_hooks.cc, a module of its own), so the backends, the loader and the
// kernels stay free of Node-API.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const NATIVE = join(__dirname, '../../native');
const BINDING = /^binding(_[a-z]+)?\.(cc|h)$/;
const TEST_ADDON = 'test_hooks.cc';
const sources = readdirSync(NATIVE).filter((f) => /\.(cc|h|cu)$/.test(f));
const includes = (file: string) => [...readFileSync(join(NATIVE, file), 'utf8').matchAll(/^\s*#\s*include\s*[<"]([^>"]+)[>"]/gm)].map((m) => m[1]);

describe('the native layers', () => {
  it('has binding files and backends to check', () => {
    expect(sources.filter((f) => BINDING.test(f)).length).toBeGreaterThanOrEqual(3);
    expect(sources).toContain('nccl_comm.cc');
  });

  it('includes napi.h (or binding.h) in the binding files only', () => {
    const outside = sources.filter((f) => !BINDING.test(f) && f !== TEST_ADDON && includes(f).some((h) => h === 'napi.h' || h === 'binding.h'));
    expect(outside).toEqual([]);
  });
});
