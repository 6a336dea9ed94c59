// The addon's look at an NCCL other than the process's own (no NCCL on this machine: a stand-in
// libnccl built here): ncclLibraryVersion asks the library its version; backends({ ncclLibrary })
// judges the nccl backend by that library, so a run's --nccl is not refused for the system's.
// Needs the addon built: npx cmake-js compile --directory native --out build/native
import path from 'node:path';
import { symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { addon } from './ranks';
import { tempDir } from '../setup/temp-dirs';
import { buildFakeNccl } from '../fixtures/fake-nccl';

const dir = tempDir('native-nccl');
const fake = buildFakeNccl(dir, 22905, '2.29.5+cuda12.9', 'libnccl.so.2.29.5');
symlinkSync('libnccl.so.2.29.5', path.join(dir, 'libnccl.so.2'));
const missing = path.join(dir, 'none', 'libnccl.so.2');

describe('ncclLibraryVersion', () => {
  it('loads the library named and gives its ncclGetVersion and the file it came from', () => {
    expect(addon.ncclLibraryVersion({ path: path.join(dir, 'libnccl.so.2') })).toEqual({
      path: path.join(dir, 'libnccl.so.2'),
      version: 22905,
    });
    expect(addon.ncclLibraryVersion({ path: fake }).version).toBe(22905);
  });

  it('refuses a file that cannot be loaded, or that is no NCCL, in the loader’s words', () => {
    expect(() => addon.ncclLibraryVersion({ path: missing })).toThrow(expect.objectContaining({ code: 'CLAB_NCCL_LIBRARY' }));
    expect(() => addon.ncclLibraryVersion({ path: missing })).toThrow(/none\/libnccl\.so\.2: cannot open shared object file/);
    const notNccl = buildFakeNccl(dir, 0, 'none', 'libnot.so');
    expect(() => addon.ncclLibraryVersion({ path: notNccl })).toThrow(/ncclGetVersion gave no version/);
  });
});

// NCCL is judged after the CUDA runtime: where that is missing too, it is the reason either way.
const noCudaRuntime = /libcudart/.test(addon.backends().nccl.reason ?? '');

describe("the process's own NCCL", () => {
  it('is not taken for a library loaded by path before it, though both are named libnccl.so.2', () => {
    expect(addon.ncclLibraryVersion({ path: fake }).version).toBe(22905);
    // No NCCL on this machine: none of its own; with one, its own, never the stand-in.
    let own: { path: string } | null;
    try {
      own = addon.ncclLibraryVersion();
    } catch {
      own = null;
    }
    expect(own?.path ?? null).not.toBe(fake);
    expect(own?.path ?? null).not.toBe(path.join(dir, 'libnccl.so.2'));
  });
});

describe('backends({ ncclLibrary })', () => {
  it.skipIf(noCudaRuntime)('judges nccl by the library named: a missing one is the reason, a loadable one is not', () => {
    const withMissing = addon.backends({ ncclLibrary: missing }).nccl;
    const withFake = addon.backends({ ncclLibrary: fake }).nccl;
    // Without a driver or GPU here nccl stays unavailable either way; the reason tells which library was judged.
    expect(withMissing).toMatchObject({ available: false, reason: expect.stringMatching(/none\/libnccl\.so\.2: cannot open/) });
    expect(withFake.reason ?? '').not.toMatch(/libnccl/);
  });
});
