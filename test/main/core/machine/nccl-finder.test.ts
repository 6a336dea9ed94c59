// `clab doctor`'s NCCL libraries: found in the search roots it is given (a temp tree of stand-in
// files here), one entry per file whichever names lead to it, each version read from the file's
// banner without loading it, and the report of what each version offers.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findNcclLibraries, ldconfigNcclPaths, readNcclBanner } from '../../../../src/main/core/machine/nccl-finder';
import { ncclLibrariesReport } from '../../../../src/main/cli/commands/doctor';
import { tempDir } from '../../../setup/temp-dirs';
import { buildFakeNccl } from '../../../fixtures/fake-nccl';

const root = tempDir('nccl-finder');
const lib = path.join(root, 'usr', 'lib');
const site = path.join(root, 'venv', 'site-packages');
const wheelLib = path.join(site, 'nvidia', 'nccl', 'lib');
for (const d of [lib, wheelLib, path.join(root, 'other-site')]) mkdirSync(d, { recursive: true });
// The system's: the file and the two links a package makes to it.
writeFileSync(path.join(lib, 'libnccl.so.2.28.3'), Buffer.concat([Buffer.alloc(100), Buffer.from('NCCL version 2.28.3+cuda13.0\0')]));
symlinkSync('libnccl.so.2.28.3', path.join(lib, 'libnccl.so.2'));
symlinkSync('libnccl.so.2', path.join(lib, 'libnccl.so'));
writeFileSync(path.join(lib, 'libnccl-net.so'), 'a network plug-in, not NCCL');
// The wheel's, its banner across the first 1 MiB read's end.
const wheel = Buffer.alloc(2 ** 20 + 200);
wheel.write('NCCL version 2.27.7+cuda12.9', 2 ** 20 - 10, 'latin1');
writeFileSync(path.join(wheelLib, 'libnccl.so.2'), wheel);
const noBanner = path.join(root, 'renamed.so');
writeFileSync(noBanner, 'no banner here');

const search = {
  ldconfig: `3 libs found in cache\n\tlibnccl.so.2 (libc6,x86-64) => ${path.join(lib, 'libnccl.so.2')}\n\tlibz.so.1 (libc6,x86-64) => /lib/libz.so.1\n`,
  libDirs: [lib, path.join(root, 'no-such-dir')],
  siteDirs: [site, path.join(root, 'other-site')],
  named: [
    { path: path.join(root, 'missing', 'libnccl.so.2'), origin: 'option' as const },
    { path: noBanner, origin: 'env' as const },
  ],
};

describe("doctor's NCCL finder", () => {
  it('reads the libnccl paths of ldconfig -p', () => {
    expect(ldconfigNcclPaths(search.ldconfig)).toEqual([path.join(lib, 'libnccl.so.2')]);
  });

  it('lists each library file once, with every place it was found, its version and what is wrong with the others', async () => {
    const found = await findNcclLibraries(search);
    expect(found).toEqual([
      {
        path: path.join(lib, 'libnccl.so.2'),
        file: path.join(lib, 'libnccl.so.2.28.3'),
        origins: ['system'],
        banner: { version: '2.28.3', code: 22803, cuda: '13.0' },
      },
      {
        path: path.join(wheelLib, 'libnccl.so.2'),
        file: path.join(wheelLib, 'libnccl.so.2'),
        origins: ['pytorch'],
        banner: { version: '2.27.7', code: 22707, cuda: '12.9' },
      },
      { path: path.join(root, 'missing', 'libnccl.so.2'), file: null, origins: ['option'], banner: null, problem: 'no such file' },
      {
        path: noBanner,
        file: noBanner,
        origins: ['env'],
        banner: null,
        problem: 'no "NCCL version" string in it: not an NCCL library?',
      },
    ]);
  });

  it('merges a library named as well as found into one entry', async () => {
    const named = [{ path: path.join(lib, 'libnccl.so'), origin: 'option' as const }];
    const found = await findNcclLibraries({ ...search, ldconfig: null, siteDirs: [], named });
    expect(found.map((f) => [f.path, f.origins])).toEqual([[path.join(lib, 'libnccl.so.2'), ['system', 'option']]]);
  });

  it("reads the banner from an ELF library's read-only data", async () => {
    const elf = buildFakeNccl(root, 23004, '2.30.4+cuda13.1', 'libnccl-elf.so');
    expect(await readNcclBanner(elf)).toEqual({ version: '2.30.4', code: 23004, cuda: '13.1' });
  });
});

describe("doctor's NCCL report", () => {
  it('names each library, where it was found, its version and which one runs load, then what each version offers', async () => {
    const found = await findNcclLibraries(search);
    const lines = ncclLibrariesReport(found, path.join(lib, 'libnccl.so.2.28.3'));
    expect(lines).toContain(
      `  ${path.join(lib, 'libnccl.so.2')} → ${path.join(lib, 'libnccl.so.2.28.3')}  [system]  NCCL 2.28.3 for CUDA 13.0  ← runs load this one`,
    );
    expect(lines).toContain(`  ${path.join(wheelLib, 'libnccl.so.2')}  [PyTorch wheel]  NCCL 2.27.7 for CUDA 12.9`);
    expect(lines).toContain(`  ${path.join(root, 'missing', 'libnccl.so.2')}  [--nccl]  no such file`);
    // Newest version first, each with its plug-in interfaces and features.
    const headers = lines.filter((l) => l.startsWith('NCCL 2.'));
    expect(headers).toEqual([
      "NCCL 2.28.3: profiler plug-in v1–v5 (the lab's as v5), tuner plug-in v2–v5 (the lab's as v5)",
      "NCCL 2.27.7: profiler plug-in v1–v4 (the lab's: none of its), tuner plug-in v2–v4 (the lab's as v4)",
    ]);
    const at2277 = lines.slice(lines.indexOf(headers[1]) + 1);
    expect(at2277).toContain('  ✓ window registration (ncclCommWindowRegister) (2.27)');
    expect(at2277.find((l) => l.includes('ncclAlltoAll'))).toMatch(/^ {2}· /);
    expect(at2277.find((l) => l.includes('per collective'))).toMatch(/^ {2}· a config per collective call .*\(2\.31\.2\)$/);
    // A feature only another page speaks of is marked so, whatever the version.
    const guess = { id: 'guess', what: 'a feature one page speaks of', since: 22000, source: 'a page', confirmed: false };
    const withGuess = ncclLibrariesReport(found, null, [guess]);
    expect(withGuess).toContain('  ? a feature one page speaks of (2.20, unconfirmed)');
    expect(withGuess.filter((l) => l.startsWith('  ✓'))).toEqual([]);
  });

  it('says when none is found', () => {
    expect(ncclLibrariesReport([], null)).toContain('  none found');
  });
});
