// The whole-run model of a source, kept up to date as a live run's events grow: each render
// appends only the new events; while live, a short poll notices events pushed into the same
// array without a new render.
import { useEffect, useReducer, useRef } from 'react';
import { extendTimeline, type TimelineModel } from './model';
import type { TimelineSource } from './source';

const LIVE_POLL_MS = 250;

export function useRunModel(source: TimelineSource, live: boolean): { model: TimelineModel; version: number } {
  const model = useRef<TimelineModel | null>(null);
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  // Appending is idempotent (the model counts what it has read), so doing it while rendering is safe.
  model.current = extendTimeline(model.current, source);
  const latest = useRef(source);
  latest.current = source;
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => {
      if (model.current && latest.current.events.length !== model.current.loaded) rerender();
    }, LIVE_POLL_MS);
    return () => clearInterval(timer);
  }, [live]);
  return { model: model.current, version: model.current.version };
}
