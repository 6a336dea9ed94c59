// Saved run records; opening one shows its results without running anything (replay). The list
// can be filtered and sorted, a run deleted, and two picked runs compared below it. While the lab
// is out of reach the list says so and is fetched again once it is back.
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { SavedAb, SavedRun } from '../../../shared/run/api/api.js';
import type { NcclAbSummary } from '../../../shared/results/nccl-ab.js';
import { compareRuns, type RunComparison } from '../../../shared/export/index.js';
import type { ConnectionState, LabClient } from '../client';
import { filterRuns, nextSort, readSort, runFileName, sortRuns, writeSort, type RunSort, type SortKey } from './list';
import { AbComparisonView } from './AbComparisonView';
import { RunComparisonView } from './RunComparisonView';
import { SavedAbsTable } from './SavedAbsTable';
import { SavedRunsTable, showDate } from './SavedRunsTable';
import { SweepOverlay } from './SweepOverlay';
import { MAX_OVERLAID_RUNS } from '../../../shared/export/sweep-overlay.js';

interface Props {
  client: LabClient;
  /** Changes when the list may have changed (a run ended). */
  refreshKey: number;
  onOpen(path: string): void;
  /** An A/B file to open now (the run panel's A/B ended), or null; `onAbShown` once it is asked for. */
  requestedAb: string | null;
  onAbShown(): void;
}

type Comparing =
  | { state: 'loading' }
  | { state: 'shown'; comparison: RunComparison; names: [string, string] }
  /** An NCCL A/B opened: its file, the folder its side records are named from. */
  | { state: 'ab'; ab: NcclAbSummary; path: string }
  | { state: 'failed'; message: string };

/** The folder of a file the lab names by path (the runs folder's A/Bs: their side records are named from it). */
const folderOf = (path: string) => path.slice(0, Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')));

/** Opens both runs and compares the older (A) with the newer (B). */
async function compareSaved(client: LabClient, picked: SavedRun[]): Promise<Comparing> {
  const opened = await Promise.all(picked.map(async (run) => ({ run, record: await client.call('openRun', { path: run.path }) })));
  const [a, b] = opened.sort((x, y) => Date.parse(x.record.createdAt) - Date.parse(y.record.createdAt));
  return { state: 'shown', comparison: compareRuns(a.record, b.record), names: [a.run.name, b.run.name] };
}

function useConnection(client: LabClient): ConnectionState {
  // onConnection says the current state at once: read it so, so an open lab never shows offline.
  const [state, setState] = useState<ConnectionState>(() => {
    let now: ConnectionState = 'connecting';
    client.onConnection((s) => (now = s))();
    return now;
  });
  useEffect(() => client.onConnection(setState), [client]);
  return state;
}

/** The runs folder's A/Bs, asked with the runs; a failure leaves them out (the runs' listing says what is wrong with the folder). */
function useSavedAbs(client: LabClient, refreshKey: number, connection: ConnectionState): SavedAb[] {
  const [abs, setAbs] = useState<SavedAb[]>([]);
  useEffect(() => {
    if (connection !== 'open') return;
    let current = true;
    client.call('listAbs', {}).then(
      (list) => current && setAbs(list),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [client, refreshKey, connection]);
  return abs;
}

/** The runs folder's listing, asked again when it may have changed or the connection came back. */
function useSavedRuns(client: LabClient, refreshKey: number, connection: ConnectionState) {
  const [runs, setRuns] = useState<SavedRun[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    // A call made while disconnected would wait for the connection: ask once it is open.
    if (connection !== 'open') return;
    let current = true;
    client.call('listRuns', {}).then(
      (list) => {
        if (current) {
          setRuns(list);
          setError(null);
        }
      },
      (e: Error) => {
        if (current) setError(e.message);
      },
    );
    return () => {
      current = false;
    };
  }, [client, refreshKey, connection, version]);
  return { runs, error, reload: useCallback(() => setVersion((v) => v + 1), []) };
}

export function SavedRuns({ client, refreshKey, onOpen, requestedAb, onAbShown }: Props) {
  const connection = useConnection(client);
  const { runs, error, reload } = useSavedRuns(client, refreshKey, connection);
  const abs = useSavedAbs(client, refreshKey, connection);
  const [picked, setPicked] = useState<string[]>([]);
  const [comparing, setComparing] = useState<Comparing | null>(null);
  const [overlaid, setOverlaid] = useState<SavedRun[] | null>(null);
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<RunSort>(() => readSort(localStorage));
  const [deleting, setDeleting] = useState<string | null>(null);
  const [deleteError, setDeleteError] = useState<string | null>(null);
  const shown = useMemo(() => (runs ? sortRuns(filterRuns(runs, query, showDate), sort) : []), [runs, query, sort]);
  // Each run of this listing is prepared once (the lab packs it ahead of its open); a failure waits for the open to be said.
  const prepared = useMemo(() => new Set<string>(), [runs]);
  const prepare = useCallback(
    (path: string) => {
      if (prepared.has(path)) return;
      prepared.add(path);
      client.call('prepareRun', { path }).catch(() => undefined);
    },
    [client, prepared],
  );

  const openAb = useCallback(
    ({ path }: Pick<SavedAb, 'path'>) => {
      setComparing({ state: 'loading' });
      client.call('openAb', { path }).then(
        (opened) => setComparing({ state: 'ab', ab: opened, path }),
        (e: Error) => setComparing({ state: 'failed', message: `Could not open the A/B: ${e.message}` }),
      );
    },
    [client],
  );
  useEffect(() => {
    if (requestedAb === null) return;
    openAb({ path: requestedAb });
    onAbShown();
  }, [requestedAb, openAb, onAbShown]);

  const offline = connection !== 'open';
  const offlineNote = offline && (
    <p className="failed" role="status" data-testid="saved-runs-offline">
      Not connected — retrying{runs ? '; the list below may be out of date' : ''}…
    </p>
  );
  if (!runs)
    return (
      offlineNote ||
      (error ? (
        <p className="failed" role="alert">
          Could not list the saved runs: {error}
        </p>
      ) : (
        <p className="empty">Loading…</p>
      ))
    );
  const comparingView = (
    <>
      {comparing?.state === 'loading' && <p className="empty">Opening…</p>}
      {comparing?.state === 'failed' && (
        <p className="failed" role="alert" data-testid="compare-failed">
          {comparing.message}
        </p>
      )}
      {comparing?.state === 'shown' && <RunComparisonView comparison={comparing.comparison} names={comparing.names} />}
      {comparing?.state === 'ab' && (
        <AbComparisonView ab={comparing.ab} name={runFileName(comparing)} folder={folderOf(comparing.path)} onOpen={onOpen} />
      )}
    </>
  );
  const abSection = abs.length > 0 && (
    <>
      <h3 className="saved-abs-title">NCCL A/B</h3>
      <SavedAbsTable abs={abs} onOpen={openAb} busy={comparing?.state === 'loading'} />
    </>
  );
  if (!runs.length)
    return (
      offlineNote || (
        <>
          <p className="empty" data-testid="saved-runs-empty">
            No saved runs yet.
          </p>
          {abSection}
          {comparingView}
        </>
      )
    );

  const pickedRuns = runs.filter((r) => picked.includes(r.path));
  // Compare takes two, the overlay up to MAX_OVERLAID_RUNS: picking one more lets go of the first one picked.
  const toggle = (path: string) =>
    setPicked((p) => (p.includes(path) ? p.filter((x) => x !== path) : [...p, path].slice(-MAX_OVERLAID_RUNS)));
  const compare = () => {
    setComparing({ state: 'loading' });
    compareSaved(client, pickedRuns).then(setComparing, (e: Error) =>
      setComparing({ state: 'failed', message: `Could not compare the runs: ${e.message}` }),
    );
  };
  const sortBy = (key: SortKey) => {
    const next = nextSort(sort, key);
    writeSort(localStorage, next);
    setSort(next);
  };
  const remove = (run: SavedRun) => {
    setDeleting(run.path);
    setDeleteError(null);
    client
      .call('deleteRun', { file: runFileName(run) })
      .then(
        () => setPicked((p) => p.filter((x) => x !== run.path)),
        (e: Error) => setDeleteError(e.message),
      )
      .finally(() => {
        setDeleting(null);
        reload();
      });
  };
  return (
    <>
      {offlineNote}
      {error && (
        <p className="failed" role="alert">
          Could not list the saved runs: {error}
        </p>
      )}
      <p className="saved-runs-bar">
        <input
          type="search"
          data-testid="saved-runs-filter"
          aria-label="Filter the saved runs"
          placeholder="filter: scenario, backend, date, status"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />{' '}
        <span className="dim" data-testid="saved-runs-count">
          {shown.length === runs.length ? `${runs.length} runs` : `${shown.length} of ${runs.length} runs`}
        </span>
      </p>
      {deleteError && (
        <p className="failed" role="alert" data-testid="delete-error">
          Could not delete the run: {deleteError}
        </p>
      )}
      <SavedRunsTable
        runs={shown}
        sort={sort}
        onSort={sortBy}
        picked={picked}
        onPick={toggle}
        onOpen={onOpen}
        onPrepare={prepare}
        onDelete={remove}
        deleting={deleting}
      />
      {!shown.length && <p className="empty">No saved run matches “{query}”.</p>}
      <p className="compare-bar">
        <button
          type="button"
          data-testid="compare-runs"
          disabled={pickedRuns.length !== 2 || comparing?.state === 'loading'}
          onClick={compare}
        >
          Compare
        </button>{' '}
        <button type="button" data-testid="overlay-sweeps" disabled={pickedRuns.length < 2} onClick={() => setOverlaid(pickedRuns)}>
          Sweeps on one chart
        </button>{' '}
        <span className="dim">
          {pickedRuns.length === 2 ? 'the older run is A, the newer B' : `pick two runs to compare (${pickedRuns.length} picked)`}
        </span>
      </p>
      {overlaid && <SweepOverlay client={client} runs={overlaid} />}
      {abSection}
      {comparingView}
    </>
  );
}
