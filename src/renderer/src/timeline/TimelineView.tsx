// The timeline of a run: every rank's streams and host thread on one clock, drawn on a canvas;
// or a compare block's variants stacked on one scale. Hover describes a slice, a click (or ] [ ↑ ↓)
// selects it and its step (details below, the step's slices outlined on every lane). Search, a
// measured range, F to zoom to the selection (as in Perfetto), Home and End, collapsible groups of
// lanes, full screen (Shift+F) and the `?` list of keys.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PlanStep } from '../../../shared/plan/types.js';
import type { StepView } from '../ui/view';
import { compareRepeats, defaultChoice, loadCompare, type CompareChoice } from './compare';
import { TimelineController, type Hover, type SliceRef, type TimelineElements } from './controller';
import { describeSlice, stepsByIndex } from './describe';
import { FindBar } from './FindBar';
import { p2pFlows } from './flows';
import { attachInput, type InputListener } from './input';
import type { TimelineAction } from './keys';
import { KeysHelp } from './KeysHelp';
import { AXIS_HEIGHT, LABEL_WIDTH, layoutRows } from './layout';
import { Legend } from './Legend';
import { measureDuration, measureText, type Measure } from './measure';
import { OVERVIEW_HEIGHT } from './overview';
import { downloadPng } from './png';
import { downloadSvg } from './svg';
import { matchAt, matchCount, searchSlices, stepMatch } from './search';
import type { TimelineSource } from './source';
import { StepDetails } from './StepDetails';
import { TimelineToolbar, type TimelineMode } from './TimelineToolbar';
import { Tooltip } from './Tooltip';
import { useRunModel } from './useRunModel';

interface Props {
  record: TimelineSource;
  /** The other views that can show a step (the Learn view: what moved where), and showing it there. */
  stepViews?(step: PlanStep): StepView[];
  onOpenStep?(view: string, step: number): void;
  /** A run in progress: its events grow; the view follows the end until the user zooms or pans. */
  live?: boolean;
  /** Names the PNG: `<name>-timeline.png`. */
  name?: string;
  /** The PNG's title line (png.ts pngTitle); the name alone when absent. */
  title?: string;
}

export function TimelineView({ record, live = false, name = 'run', title, stepViews, onOpenStep }: Props) {
  const run = useRunModel(record, live);
  const [mode, setMode] = useState<TimelineMode>('run');
  const [choice, setChoice] = useState<CompareChoice | null>(() => defaultChoice(record));
  const compareModel = useMemo(
    () => (mode === 'compare' && choice ? loadCompare(record, choice) : null),
    [mode, choice, record, run.version],
  );
  const model = compareModel ?? run.model;
  const version = compareModel ? 0 : run.version;
  const flows = useMemo(() => p2pFlows(model, record.plan), [model, version, record.plan]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const layout = useMemo(() => layoutRows(model, collapsed), [model, version, collapsed]);
  const steps = useMemo(() => stepsByIndex(record.steps), [record.steps, record.steps.length]);
  const [hover, setHover] = useState<Hover | null>(null);
  const [selection, setSelection] = useState<SliceRef | null>(null);
  const [measure, setMeasure] = useState<Measure | null>(null);
  const [searching, setSearching] = useState(false);
  const [searchFocus, setSearchFocus] = useState(0);
  const [query, setQuery] = useState('');
  const [matchIndex, setMatchIndex] = useState(-1);
  const [help, setHelp] = useState(false);
  const [fullscreen, setFullscreen] = useState(false);
  // Once per query (and per model): every slice is read here, never in a frame.
  const search = useMemo(() => (query.trim() ? searchSlices(model, query) : null), [model, version, query]);
  const selectedLane = selection ? model.lanes[selection.lane] : undefined;
  const selected =
    selection && selectedLane && selection.slice < selectedLane.slices.count ? selectedLane.slices.step[selection.slice] : null;

  const root = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const overview = useRef<HTMLCanvasElement>(null);
  const labels = useRef<HTMLDivElement>(null);
  const controller = useRef<TimelineController | null>(null);
  const onAction = useRef<(action: TimelineAction) => void>(() => undefined);

  useEffect(() => {
    const elements: TimelineElements = {
      root: root.current!,
      canvas: canvas.current!,
      overview: overview.current!,
      labels: labels.current!,
    };
    const listener: InputListener = {
      onHover: setHover,
      onSelect: setSelection,
      onMeasure: setMeasure,
      onAction: (action) => onAction.current(action),
    };
    const c = new TimelineController(elements, listener);
    const detach = attachInput(c, elements, listener);
    controller.current = c;
    return () => {
      detach();
      c.dispose();
      controller.current = null;
    };
  }, []);
  useEffect(() => {
    setHover(null);
    controller.current?.setModel(model, flows, layout);
  }, [model, version, flows, layout]);
  useEffect(() => {
    setMatchIndex(-1);
    controller.current?.setSearch(search);
  }, [search]);

  const jumpToMatch = (delta: 1 | -1) => {
    if (!search || !matchCount(search)) return;
    const next = stepMatch(matchCount(search), matchIndex, delta);
    setMatchIndex(next);
    controller.current?.select(matchAt(search, next), true);
  };
  const closeSearch = () => {
    setSearching(false);
    setQuery('');
    root.current?.focus({ preventScroll: true });
  };
  onAction.current = (action) => {
    if (action === 'search') {
      setSearching(true);
      setSearchFocus((n) => n + 1);
    } else if (action === 'next-match' || action === 'previous-match') jumpToMatch(action === 'next-match' ? 1 : -1);
    else if (action === 'fullscreen') setFullscreen((on) => !on);
    else if (action === 'help') setHelp((on) => !on);
    else if (action === 'escape') {
      if (help) setHelp(false);
      else if (fullscreen) setFullscreen(false);
      else if (measure || selection) {
        controller.current?.setMeasure(null);
        controller.current?.select(null);
      } else if (searching) closeSearch();
    }
  };
  const toggleGroup = (title: string) =>
    setCollapsed((before) => {
      const after = new Set(before);
      if (!after.delete(title)) after.add(title);
      return after;
    });

  const exportPng = useCallback(() => downloadPng(canvas.current!, model, layout, name, title ?? name), [model, layout, name, title]);
  const exportSvg = useCallback(() => {
    const view = controller.current?.visibleWindow();
    if (view) downloadSvg(model, layout, view, name, title ?? name);
  }, [model, layout, name, title]);
  const described = hover && hover.lane < model.lanes.length ? describeSlice(model, record, steps, hover.lane, hover.slice) : null;
  const selectedSlice = selected !== null && selection ? describeSlice(model, record, steps, selection.lane, selection.slice) : null;
  const measured = measure ? measureDuration(measure) : null;

  return (
    <div
      className={fullscreen ? 'timeline timeline-fullscreen' : 'timeline'}
      data-testid="timeline"
      data-fullscreen={fullscreen}
      tabIndex={0}
      ref={root}
      aria-label="Timeline"
    >
      <TimelineToolbar
        source={record}
        mode={mode}
        choice={choice}
        repeats={choice ? compareRepeats(record, choice.compare) : []}
        onMode={setMode}
        onChoice={setChoice}
        onFit={() => controller.current?.fit()}
        onPng={exportPng}
        onSvg={exportSvg}
        onSearch={() => onAction.current('search')}
        fullscreen={fullscreen}
        onFullscreen={() => setFullscreen((on) => !on)}
        onHelp={() => setHelp((on) => !on)}
      />
      {searching && (
        <FindBar
          query={query}
          matches={search ? matchCount(search) : null}
          current={matchIndex}
          focusGeneration={searchFocus}
          onQuery={setQuery}
          onStep={jumpToMatch}
          onClose={closeSearch}
        />
      )}
      <Legend model={model} version={version} arrows={flows.length > 0} />
      <div className="timeline-overview-row">
        <div className="timeline-overview-label dim" style={{ width: LABEL_WIDTH, height: OVERVIEW_HEIGHT }}>
          whole run
        </div>
        <div className="timeline-overview-box">
          <canvas ref={overview} data-testid="timeline-overview" />
        </div>
      </div>
      <div className="timeline-body">
        <div className="timeline-labels" ref={labels} style={{ width: LABEL_WIDTH }}>
          <div style={{ height: AXIS_HEIGHT }} />
          {layout.rows.map((row) =>
            row.kind === 'header' ? (
              <button
                type="button"
                key={`h${row.title}`}
                className="timeline-group-header"
                style={{ height: row.height }}
                title={`${row.title}: click to ${row.collapsed ? 'show' : 'hide'} its ${row.lanes} lanes`}
                aria-expanded={!row.collapsed}
                data-testid="timeline-group"
                data-group={row.title}
                onClick={() => toggleGroup(row.title)}
              >
                {row.title}
                {row.collapsed && <span className="dim"> ({row.lanes} lanes)</span>}
              </button>
            ) : (
              <div
                key={`l${row.y}`}
                className="timeline-lane-label"
                style={{ height: row.height }}
                data-testid="timeline-lane"
                data-lane={model.lanes[row.lane].name}
                data-lane-index={row.lane}
                title={model.lanes[row.lane].name}
              >
                {model.lanes[row.lane].name}
              </div>
            ),
          )}
        </div>
        <div className="timeline-canvas-box">
          <canvas ref={canvas} data-testid="timeline-canvas" />
          {measure && (
            <div className="timeline-measure" data-testid="timeline-measure" data-duration-ns={measured ?? ''}>
              {measureText(measure)}
              <button type="button" className="link" onClick={() => controller.current?.setMeasure(null)}>
                clear
              </button>
            </div>
          )}
          {described && hover && <Tooltip description={described} x={hover.x} y={hover.y} boxWidth={canvas.current?.clientWidth ?? 0} />}
        </div>
      </div>
      {!model.lanes.length && (
        <p className="empty">{live ? 'Waiting for the first step to end…' : 'This run recorded no timeline events.'}</p>
      )}
      {help && <KeysHelp onClose={() => setHelp(false)} />}
      {selected !== null && (
        <StepDetails
          planStep={record.plan.steps[selected]}
          step={steps.get(selected)}
          slice={selectedSlice}
          onClose={() => controller.current?.select(null)}
          stepViews={stepViews}
          onOpenStep={onOpenStep}
        />
      )}
    </div>
  );
}
