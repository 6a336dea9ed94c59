// The NCCL a run names: checked before anything runs (an existing regular file, named in the error
// otherwise), given to the ranks in CLAB_NCCL_LIBRARY, and kept in the record once per run with the
// version the library itself reports (the addon asks a stand-in libnccl built here) and its SHA-256.
import { createHash } from 'node:crypto';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LabRun } from '../../../../src/main/core/run/run';
import { prepareRun } from '../../../../src/main/core/service/start-run';
import {
  checkNcclLibraryPath,
  describeNcclLibrary,
  ncclChoice,
  NcclLibraryError,
  sha256File,
} from '../../../../src/main/core/machine/nccl-library';
import { PROTOCOL_VERSION } from '../../../../src/shared/run/rank/protocol';
import { compileLoaded, parseScenarioText } from '../../../../src/shared/plan/text';
import { runRecordSchema } from '../../../../src/shared/run/record/record';
import { tempDir } from '../../../setup/temp-dirs';
import { buildFakeNccl } from '../../../fixtures/fake-nccl';

const dir = tempDir('nccl-library');
const fake = buildFakeNccl(dir, 23004, '2.30.4+cuda13.1', 'libnccl.so.2.30.4');
const link = path.join(dir, 'libnccl.so.2');
symlinkSync('libnccl.so.2.30.4', link);
const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

const loaded = () =>
  parseScenarioText(
    JSON.stringify({ version: 1, name: 'nccl-library', world: { ranks: 2 }, steps: [{ op: 'all_reduce', count: 4 }] }),
    'inline.scenario.json',
  );

describe('the NCCL library a run names', () => {
  it('must be an existing regular file; the error names the path and what is there instead', () => {
    const missing = path.join(dir, 'nope', 'libnccl.so.2');
    expect(() => checkNcclLibraryPath(missing, '--nccl')).toThrow(NcclLibraryError);
    expect(() => checkNcclLibraryPath(missing, '--nccl')).toThrow(`--nccl ${JSON.stringify(missing)}: no such file`);
    expect(() => checkNcclLibraryPath(dir, '--nccl')).toThrow(`${JSON.stringify(dir)}: a directory`);
    // A link to a library (libnccl.so.2 usually is one) is as good as the file.
    expect(checkNcclLibraryPath(link, '--nccl')).toBe(link);
  });

  it('must be named as NCCL names its library: no other shared object is loaded into the ranks', () => {
    const other = path.join(dir, 'libevil.so');
    writeFileSync(other, 'x');
    expect(() => checkNcclLibraryPath(other, 'the NCCL library')).toThrow(
      `the NCCL library ${JSON.stringify(other)}: not named as NCCL's library is; expected a file named libnccl….so… (libnccl.so.2, libnccl.so.2.30.7)`,
    );
    const plugin = path.join(dir, 'libnccl-net.so');
    writeFileSync(plugin, 'x');
    expect(() => checkNcclLibraryPath(plugin, '--nccl')).toThrow('not named as NCCL');
  });

  it('is checked before anything runs, and never with ranks from a launcher (they load their own host’s)', () => {
    expect(() => prepareRun({ loaded: loaded(), scenarioFile: null, backend: 'cpu', ncclLibrary: path.join(dir, 'missing.so') })).toThrow(
      /the NCCL library ".*missing\.so": no such file/,
    );
    expect(() =>
      prepareRun({ loaded: loaded(), scenarioFile: null, backend: 'cpu', ncclLibrary: fake, remote: { listen: '127.0.0.1:0' } }),
    ).toThrow(/set CLAB_NCCL_LIBRARY in the environment the launcher starts/);
  });

  it('is judged by that library when the backend is chosen, not by the one this process loaded', () => {
    const asked: unknown[] = [];
    const addon = {
      backends: (options?: { ncclLibrary?: string }) => {
        asked.push(options);
        return { cpu: { available: true }, nccl: { available: false, reason: 'no GPU' } };
      },
    };
    prepareRun({ loaded: loaded(), scenarioFile: null, backend: 'auto', ncclLibrary: link, loadAddon: () => addon, recordsDir: dir });
    expect(asked).toEqual([{ ncclLibrary: link }]);
  });
});

describe('its hash', () => {
  it('is the SHA-256 of the file, read as a stream', async () => {
    const file = path.join(dir, 'three-mib.bin');
    writeFileSync(file, Buffer.alloc(3 * 2 ** 20 + 5, 7));
    expect(await sha256File(file)).toEqual({ sha256: sha256Of(file) });
  });

  it('is not taken of a file larger than the bound, which is said', async () => {
    const file = path.join(dir, 'large.bin');
    writeFileSync(file, Buffer.alloc(4096));
    expect(await sha256File(file, 1000)).toEqual({ problem: '4096 bytes, more than the 1000 hashed' });
  });
});

describe('the record’s library', () => {
  it('is the file the addon loads for the name, links resolved, with the version it reports and its hash', async () => {
    const record = await describeNcclLibrary(ncclChoice(link, {}));
    expect(record).toEqual({ path: fake, version: '2.30.4', sha256: sha256Of(fake), chosenBy: 'option' });
  });

  it('comes from CLAB_NCCL_LIBRARY in the ranks’ environment when the run names none', () => {
    expect(ncclChoice(undefined, { CLAB_NCCL_LIBRARY: link })).toEqual({ path: link, chosenBy: 'env' });
    expect(ncclChoice(undefined, {})).toEqual({ path: null, chosenBy: 'loader' });
    expect(ncclChoice(fake, { CLAB_NCCL_LIBRARY: link })).toEqual({ path: fake, chosenBy: 'option' });
  });

  it('keeps a file the addon cannot load as named, unversioned, still hashed', async () => {
    const notNccl = path.join(dir, 'not-nccl.so');
    writeFileSync(notNccl, 'not an ELF file');
    const record = await describeNcclLibrary({ path: notNccl, chosenBy: 'option' });
    expect(record).toEqual({ path: notNccl, version: null, sha256: sha256Of(notNccl), chosenBy: 'option' });
  });
});

describe('a run with --nccl', () => {
  it('gives every rank the library in CLAB_NCCL_LIBRARY and keeps it, hashed once, in the record', async () => {
    const l = loaded();
    const run = new LabRun({
      plan: compileLoaded(l),
      backend: 'nccl',
      scenario: l.raw,
      scenarioFile: null,
      workerEntry: path.resolve('test/fixtures/workers/nccl-library-rank.cjs'),
      env: { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION), CLAB_NCCL_LIBRARY: '/elsewhere/libnccl.so.2' },
      ncclLibrary: link,
    });
    const record = await run.run();
    expect(record.error).toBeNull();
    const said = record.logs.filter((l) => l.rank !== null).map((l) => `${l.rank}: ${l.text}`);
    expect(said).toEqual(expect.arrayContaining([`0: CLAB_NCCL_LIBRARY=${link}`, `1: CLAB_NCCL_LIBRARY=${link}`]));
    expect(record.environment.ncclLibrary).toEqual({ path: fake, version: '2.30.4', sha256: sha256Of(fake), chosenBy: 'option' });
    // The older fields say the same, not this process's own NCCL.
    expect(record.environment.versions).toMatchObject({ nccl: '2.30.4', ncclLibrary: fake });
    expect(runRecordSchema.safeParse(JSON.parse(JSON.stringify(record))).success).toBe(true);
  });
});

describe('the record schema', () => {
  it('reads a record’s library, and refuses a hash that is no SHA-256', async () => {
    const l = loaded();
    const record = await new LabRun({
      plan: compileLoaded(l),
      backend: 'cpu',
      scenario: l.raw,
      scenarioFile: null,
      workerEntry: path.resolve('test/fixtures/workers/nccl-library-rank.cjs'),
      env: { ...process.env, CLAB_TEST_PROTOCOL_VERSION: String(PROTOCOL_VERSION) },
    }).run();
    // A cpu run loads no NCCL and keeps none; the field is optional, as in older records.
    expect(record.environment.ncclLibrary).toBeUndefined();
    const library = { path: fake, version: '2.30.4', sha256: sha256Of(fake), chosenBy: 'option' };
    const withLibrary = { ...record, environment: { ...record.environment, ncclLibrary: library } };
    expect(runRecordSchema.safeParse(withLibrary).success).toBe(true);
    const badHash = { ...withLibrary, environment: { ...withLibrary.environment, ncclLibrary: { ...library, sha256: 'abc' } } };
    expect(runRecordSchema.safeParse(badHash).success).toBe(false);
  });
});
