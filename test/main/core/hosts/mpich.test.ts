// Integration: workers started by Debian's MPICH mpiexec (Hydra) beside Open MPI's mpirun, each
// worker reading its rank from its own launcher's variables. Debian keeps both side by side as
// mpiexec.mpich and mpirun.openmpi (plain mpirun is whichever the alternatives chose), so they are
// found by those names. CI installs mpich and openmpi-bin (.ci/run).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRecordSchema } from '../../../../src/shared/run/record/record';
import { alive, endAll, has, launchedAllInOne, pidsMentioning, tokenFile } from './processes';

const LAUNCHERS = [
  {
    name: 'MPICH',
    command: 'mpiexec.mpich -n 3',
    missing: has('mpiexec.mpich') ? null : 'mpiexec.mpich (MPICH) is missing: apt-get install mpich',
    source: 'MPICH / Intel MPI (Hydra) (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID)',
  },
  {
    name: 'Open MPI',
    command: 'mpirun.openmpi --oversubscribe --bind-to none -np 3',
    missing: has('mpirun.openmpi') ? null : 'mpirun.openmpi (Open MPI) is missing: apt-get install openmpi-bin',
    source: 'Open MPI (OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE, OMPI_COMM_WORLD_LOCAL_RANK)',
  },
];
for (const l of LAUNCHERS) if (l.missing) console.warn(`skipping the ${l.name} launcher test: ${l.missing}`);

afterEach(() => endAll());

describe('ranks from either MPI on one machine', () => {
  for (const l of LAUNCHERS) {
    it.skipIf(l.missing)(`3 cpu ranks that ${l.name}'s launcher started, each reading its rank from ${l.name}'s variables`, async () => {
      const { dir } = tokenFile();
      const out = join(dir, 'run.json');
      const c = launchedAllInOne(dir, out, 3, l.command);
      expect(await c.exited).toBe(0);
      // Every rank says where its place came from: this launcher's variables, no other's.
      for (const rank of [0, 1, 2]) expect(c.err).toContain(`rank ${rank} of 3 (${l.source}; local rank ${rank}`);
      const r = runRecordSchema.parse(JSON.parse(readFileSync(out, 'utf8')));
      expect(r.status).toBe('passed');
      expect(r.hosts?.flatMap((h) => h.ranks).sort()).toEqual([0, 1, 2]);
      expect(pidsMentioning(dir).filter(alive)).toEqual([]);
    });
  }
});
