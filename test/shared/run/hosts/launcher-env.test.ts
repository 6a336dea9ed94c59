import { describe, expect, it } from 'vitest';
import { deviceOf, parseAddress, PlaceError, rankPlace } from '../../../../src/shared/run/hosts/launcher-env';

describe("a worker's place from its launcher's environment", () => {
  it("reads torchrun's RANK, WORLD_SIZE and LOCAL_RANK", () => {
    expect(rankPlace({ RANK: '5', WORLD_SIZE: '8', LOCAL_RANK: '1' })).toMatchObject({ rank: 5, world: 8, localRank: 1, device: 1 });
  });

  it("reads Slurm's SLURM_PROCID, SLURM_NTASKS and SLURM_LOCALID", () => {
    const p = rankPlace({ SLURM_PROCID: '9', SLURM_NTASKS: '16', SLURM_LOCALID: '1' });
    expect(p).toMatchObject({ rank: 9, world: 16, localRank: 1, device: 1 });
    expect(p.source).toContain('Slurm');
  });

  it("reads Open MPI's OMPI_COMM_WORLD_RANK, _SIZE and _LOCAL_RANK", () => {
    expect(rankPlace({ OMPI_COMM_WORLD_RANK: '3', OMPI_COMM_WORLD_SIZE: '4', OMPI_COMM_WORLD_LOCAL_RANK: '1' })).toMatchObject({
      rank: 3,
      world: 4,
      localRank: 1,
    });
  });

  it("reads MPICH's and Intel MPI's PMI_RANK, PMI_SIZE and MPI_LOCALRANKID (Hydra)", () => {
    const p = rankPlace({ PMI_RANK: '6', PMI_SIZE: '8', MPI_LOCALRANKID: '2', MPI_LOCALNRANKS: '4', PMI_FD: '6' });
    expect(p).toMatchObject({ rank: 6, world: 8, localRank: 2, device: 2 });
    expect(p.source).toBe('MPICH / Intel MPI (Hydra) (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID)');
  });

  it("reads MVAPICH's MV2_COMM_WORLD_RANK, _SIZE and _LOCAL_RANK over a PMI_RANK it may see beside them", () => {
    const p = rankPlace({
      MV2_COMM_WORLD_RANK: '5',
      MV2_COMM_WORLD_SIZE: '6',
      MV2_COMM_WORLD_LOCAL_RANK: '1',
      PMI_RANK: '0',
      PMI_SIZE: '1',
    });
    expect(p).toMatchObject({ rank: 5, world: 6, localRank: 1 });
    expect(p.source).toContain('MVAPICH');
  });

  it("reads PMIx's PMIX_RANK with the world from --world, and says PMIx sets no size", () => {
    expect(rankPlace({ PMIX_RANK: '3', PMIX_NAMESPACE: 'prterun-x-1@1' }, { world: 4 })).toMatchObject({ rank: 3, world: 4, localRank: 0 });
    expect(() => rankPlace({ PMIX_RANK: '3' })).toThrow('no world size: pass --world (PMIx sets no world size)');
  });

  it("prefers Open MPI's and Slurm's own variables to the PMI and PMIx ones they may set too", () => {
    expect(rankPlace({ OMPI_COMM_WORLD_RANK: '1', OMPI_COMM_WORLD_SIZE: '2', PMIX_RANK: '7' }).source).toContain('Open MPI');
    expect(rankPlace({ SLURM_PROCID: '1', SLURM_NTASKS: '2', PMI_RANK: '7', PMI_SIZE: '9' }).source).toContain('Slurm');
  });

  it('refuses a PMI_RANK that is not a whole number, naming the variable', () => {
    expect(() => rankPlace({ PMI_RANK: '-1', PMI_SIZE: '2' })).toThrow('PMI_RANK is "-1", not a whole number');
  });

  it("reads a Kubernetes Indexed Job's JOB_COMPLETION_INDEX, with the world from --world", () => {
    expect(rankPlace({ JOB_COMPLETION_INDEX: '2' }, { world: 4 })).toMatchObject({ rank: 2, world: 4, localRank: 0, device: 0 });
  });

  it('lets --rank and --world win over the launcher', () => {
    const p = rankPlace({ RANK: '1', WORLD_SIZE: '2', LOCAL_RANK: '1' }, { rank: 0, world: 4 });
    expect(p).toMatchObject({ rank: 0, world: 4, localRank: 1 });
    expect(p.source).toBe('--rank, --world over torchrun (RANK, WORLD_SIZE, LOCAL_RANK)');
  });

  it('refuses a rank outside the world, no rank, no world and a rank that is not a number', () => {
    expect(() => rankPlace({ RANK: '4', WORLD_SIZE: '4' })).toThrow('rank 4 is outside a world of 4 (ranks 0 to 3)');
    expect(() => rankPlace({})).toThrow(/no rank: pass --rank/);
    expect(() => rankPlace({ JOB_COMPLETION_INDEX: '0' })).toThrow(/no world size/);
    expect(() => rankPlace({ RANK: 'one', WORLD_SIZE: '2' })).toThrow(PlaceError);
  });

  it("takes the GPU by local rank, the only one CUDA_VISIBLE_DEVICES names, or the local rank's among several", () => {
    expect(deviceOf({}, 3)).toBe(3);
    expect(deviceOf({ CUDA_VISIBLE_DEVICES: '5' }, 3)).toBe(0);
    expect(deviceOf({ CUDA_VISIBLE_DEVICES: '4,5' }, 1)).toBe(1);
    expect(() => deviceOf({ CUDA_VISIBLE_DEVICES: '4,5' }, 2)).toThrow(/local rank 2 has no GPU/);
  });
});

describe('addresses', () => {
  it('reads HOST:PORT, [v6]:PORT and a bare PORT on the default host', () => {
    expect(parseAddress('10.0.0.1:7777', '127.0.0.1')).toEqual({ host: '10.0.0.1', port: 7777 });
    expect(parseAddress('[::1]:80', '127.0.0.1')).toEqual({ host: '::1', port: 80 });
    expect(parseAddress('7777', '127.0.0.1')).toEqual({ host: '127.0.0.1', port: 7777 });
    expect(() => parseAddress('host:99999', '127.0.0.1')).toThrow(/not \[HOST:\]PORT/);
  });
});
