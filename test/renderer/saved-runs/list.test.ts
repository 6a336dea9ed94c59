// The saved runs list: filtered by words, sorted by a column, the sort kept across sessions.
import { describe, expect, it } from 'vitest';
import type { SavedRun } from '../../../src/shared/run/api/api';
import {
  DEFAULT_SORT,
  filterRuns,
  formatDuration,
  importedMark,
  nextSort,
  readSort,
  runDuration,
  runFileName,
  sortRuns,
  writeSort,
} from '../../../src/renderer/src/saved-runs/list';

const run = (name: string, createdAt: string, seconds: number | null, status = 'passed', backend = 'cpu'): SavedRun => ({
  path: `/runs/${name.replace(/\W+/g, '-')}.run.json`,
  name,
  createdAt,
  finishedAt: seconds === null ? null : new Date(Date.parse(createdAt) + seconds * 1000).toISOString(),
  status,
  world: 2,
  backend,
});

const runs = [
  run('all_reduce sweep', '2026-11-20T10:00:00.000Z', 12),
  run('All-in-one collectives', '2026-11-25T09:00:00.000Z', 3, 'failed', 'nccl'),
  run('p2p pairs', '2026-11-22T08:00:00.000Z', null, 'incomplete'),
];
const names = (list: SavedRun[]) => list.map((r) => r.name);
const iso = (s: string) => s;

describe('the saved runs list', () => {
  it('filters by every word typed: scenario name, backend, status or date', () => {
    expect(names(filterRuns(runs, 'NCCL', iso))).toEqual(['All-in-one collectives']);
    expect(names(filterRuns(runs, 'sweep cpu', iso))).toEqual(['all_reduce sweep']);
    expect(names(filterRuns(runs, 'incomplete', iso))).toEqual(['p2p pairs']);
    expect(names(filterRuns(runs, '2026-11-2', iso))).toHaveLength(3);
    expect(names(filterRuns(runs, 'nov 22', () => 'Nov 22'))).toHaveLength(3);
    expect(names(filterRuns(runs, 'sweep nccl', iso))).toEqual([]);
    expect(names(filterRuns(runs, '  ', iso))).toHaveLength(3);
  });

  it('marks a record read in by clab import in words, and finds it by them', () => {
    const imported = {
      ...run('all_reduce_perf on h1, 4 ranks', '2026-11-21T10:00:00.000Z', null),
      imported: { source: 'nccl-tests text log', program: 'all_reduce_perf' },
    };
    expect(importedMark(imported.imported)).toBe('imported: nccl-tests text log, all_reduce_perf');
    const shown = (q: string) => filterRuns([...runs, imported], q, (iso) => iso).map((r) => r.name);
    expect(shown('imported')).toEqual(['all_reduce_perf on h1, 4 ranks']);
    expect(shown('nccl-tests')).toEqual(['all_reduce_perf on h1, 4 ranks']);
  });

  it('sorts by date, name, duration or status, either way; runs without a duration last', () => {
    expect(names(sortRuns(runs, DEFAULT_SORT))).toEqual(['All-in-one collectives', 'p2p pairs', 'all_reduce sweep']);
    expect(names(sortRuns(runs, { key: 'name', descending: false }))).toEqual(['all_reduce sweep', 'All-in-one collectives', 'p2p pairs']);
    expect(names(sortRuns(runs, { key: 'duration', descending: true }))).toEqual([
      'all_reduce sweep',
      'All-in-one collectives',
      'p2p pairs',
    ]);
    expect(names(sortRuns(runs, { key: 'duration', descending: false }))).toEqual([
      'All-in-one collectives',
      'all_reduce sweep',
      'p2p pairs',
    ]);
    expect(names(sortRuns(runs, { key: 'status', descending: false }))).toEqual([
      'All-in-one collectives',
      'p2p pairs',
      'all_reduce sweep',
    ]);
  });

  it('turns the order round on a second click, and starts dates and durations largest first', () => {
    expect(nextSort(DEFAULT_SORT, 'date')).toEqual({ key: 'date', descending: false });
    expect(nextSort(DEFAULT_SORT, 'name')).toEqual({ key: 'name', descending: false });
    expect(nextSort({ key: 'name', descending: false }, 'duration')).toEqual({ key: 'duration', descending: true });
  });

  it('keeps the sort in storage, and falls back to newest first on anything else there', () => {
    const store = new Map<string, string>();
    const storage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v) };
    expect(readSort(storage)).toEqual(DEFAULT_SORT);
    writeSort(storage, { key: 'status', descending: true });
    expect(readSort(storage)).toEqual({ key: 'status', descending: true });
    store.set('clab.savedRuns.sort', '{"key":"size","descending":true}');
    expect(readSort(storage)).toEqual(DEFAULT_SORT);
    store.set('clab.savedRuns.sort', '{not json');
    expect(readSort(storage)).toEqual(DEFAULT_SORT);
  });

  it("gives a run's duration and file name", () => {
    expect(runDuration(runs[0])).toBe(12_000);
    expect(runDuration(runs[2])).toBeNull();
    expect([formatDuration(450), formatDuration(12_000), formatDuration(125_000), formatDuration(null)]).toEqual([
      '450 ms',
      '12.0 s',
      '2 min 5 s',
      '—',
    ]);
    expect(runFileName(runs[1])).toBe('All-in-one-collectives.run.json');
  });
});
