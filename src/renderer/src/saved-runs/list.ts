// The saved runs as the list shows them: filtered by words the user typed, sorted by a column
// (kept across sessions), each run's duration and file name.
import { shownStatus } from '../../../shared/results/expectation.js';
import type { SavedRun } from '../../../shared/run/api/api.js';

export type SortKey = 'date' | 'name' | 'duration' | 'status';
export interface RunSort {
  key: SortKey;
  descending: boolean;
}

export const SORT_KEYS: readonly SortKey[] = ['date', 'name', 'duration', 'status'];
/** Newest first: what the list showed before it could be sorted. */
export const DEFAULT_SORT: RunSort = { key: 'date', descending: true };
const SORT_STORAGE_KEY = 'clab.savedRuns.sort';

/** The file name of a saved run in the runs folder (what deleteRun takes). */
export const runFileName = (run: Pick<SavedRun, 'path'>): string => run.path.split(/[\\/]/).pop() ?? run.path;

/** Milliseconds from start to end, or null when the record has no end (unfinished, or an older core). */
export function runDuration(run: SavedRun): number | null {
  if (!run.finishedAt) return null;
  const ms = Date.parse(run.finishedAt) - Date.parse(run.createdAt);
  return Number.isFinite(ms) && ms >= 0 ? ms : null;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/**
 * The runs every word of `query` is found in (case ignored), a word matching the scenario's name,
 * the backend, the status (as the list shows it: a run that failed as it was meant to is passed),
 * the file name or the date (as the list shows it, or as ISO).
 */
/** How the list marks a record read in by `clab import`, in words (not colour only). */
export const importedMark = (imported: NonNullable<SavedRun['imported']>): string => `imported: ${imported.source}, ${imported.program}`;

export function filterRuns(runs: readonly SavedRun[], query: string, showDate: (iso: string) => string): SavedRun[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...runs];
  return runs.filter((run) => {
    const haystack = [
      run.name,
      run.backend ?? '',
      shownStatus(run),
      runFileName(run),
      run.createdAt,
      showDate(run.createdAt),
      run.imported ? importedMark(run.imported) : '',
    ]
      .join('\n')
      .toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

function compareBy(key: SortKey): (a: SavedRun, b: SavedRun) => number {
  switch (key) {
    case 'date':
      return (a, b) => a.createdAt.localeCompare(b.createdAt);
    case 'name':
      return (a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
    case 'status':
      return (a, b) => shownStatus(a).localeCompare(shownStatus(b));
    case 'duration':
      return (a, b) => (runDuration(a) ?? 0) - (runDuration(b) ?? 0);
  }
}

/** Sorted by the column; ties newest first; runs without a duration last whichever way durations go. */
export function sortRuns(runs: readonly SavedRun[], sort: RunSort): SavedRun[] {
  const by = compareBy(sort.key);
  const newestFirst = (a: SavedRun, b: SavedRun) => b.createdAt.localeCompare(a.createdAt);
  return [...runs].sort((a, b) => {
    if (sort.key === 'duration') {
      const missing = Number(runDuration(a) === null) - Number(runDuration(b) === null);
      if (missing) return missing;
    }
    return (sort.descending ? -by(a, b) : by(a, b)) || newestFirst(a, b);
  });
}

/** Clicking a column: sorts by it (dates and durations largest first), or turns its order round. */
export function nextSort(current: RunSort, key: SortKey): RunSort {
  if (current.key === key) return { key, descending: !current.descending };
  return { key, descending: key === 'date' || key === 'duration' };
}

export function readSort(storage: Pick<Storage, 'getItem'>): RunSort {
  try {
    const saved = JSON.parse(storage.getItem(SORT_STORAGE_KEY) ?? 'null') as Partial<RunSort> | null;
    if (saved && SORT_KEYS.includes(saved.key as SortKey) && typeof saved.descending === 'boolean')
      return { key: saved.key as SortKey, descending: saved.descending };
  } catch {
    // Not ours or spoilt: the default.
  }
  return DEFAULT_SORT;
}

export function writeSort(storage: Pick<Storage, 'setItem'>, sort: RunSort): void {
  storage.setItem(SORT_STORAGE_KEY, JSON.stringify(sort));
}
