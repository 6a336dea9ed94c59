// Two or more saved runs' sweeps on one chart (busbw against size, each run's α-β model dashed in
// its colour): opened from Saved runs with the runs picked there. Kept apart from the A/B
// comparison, which compares two runs step by step.
import { useEffect, useMemo, useState } from 'react';
import type { SavedRun } from '../../../shared/run/api/api.js';
import { sweepOverlay, type OverlaidRun } from '../../../shared/export/sweep-overlay.js';
import type { LabClient } from '../client';
import { SeriesChart } from '../ui/SeriesChart';
import { runFileName } from './list';

type Loaded = { state: 'loading' } | { state: 'shown'; runs: OverlaidRun[] } | { state: 'failed'; message: string };

export function SweepOverlay({ client, runs }: { client: LabClient; runs: SavedRun[] }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  useEffect(() => {
    let current = true;
    setLoaded({ state: 'loading' });
    Promise.all(runs.map(async (run) => ({ name: runFileName(run), record: await client.call('openRun', { path: run.path }) }))).then(
      (opened) => current && setLoaded({ state: 'shown', runs: opened }),
      (e: Error) => current && setLoaded({ state: 'failed', message: `Could not open the runs: ${e.message}` }),
    );
    return () => {
      current = false;
    };
  }, [client, runs]);
  // Once a load: new series would make the chart draw itself again on every render of the list.
  const overlay = useMemo(() => (loaded.state === 'shown' ? sweepOverlay(loaded.runs) : null), [loaded]);
  if (loaded.state === 'loading') return <p className="empty">Opening…</p>;
  if (loaded.state === 'failed')
    return (
      <p className="failed" role="alert" data-testid="overlay-failed">
        {loaded.message}
      </p>
    );
  const { unit, series, sweeps } = overlay!;
  const without = loaded.runs.filter((r) => !r.record.plan.sweeps.length).map((r) => r.name);
  return (
    <section className="sweep-overlay" data-testid="sweep-overlay" aria-label="Sweeps on one chart">
      <h3>Sweeps on one chart</h3>
      {without.length > 0 && (
        <p className="dim" data-testid="overlay-no-sweep">
          No sweep in {without.join(', ')}.
        </p>
      )}
      {sweeps > 0 ? (
        <SeriesChart
          title={`busbw against size: ${loaded.runs.map((r) => r.name).join(' · ')}`}
          unit={unit}
          series={series}
          fileStem="sweeps-overlaid"
          testId="overlay-chart"
          canvasData={{ 'data-series': series.map((s) => s.label).join('|') }}
          label={`busbw against message size for ${loaded.runs.length} runs, each in its own colour, its model dashed`}
        />
      ) : (
        <p className="empty">None of the picked runs has a sweep.</p>
      )}
    </section>
  );
}
