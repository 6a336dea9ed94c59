// The timeline of a run: every rank's streams and host thread on one clock, drawn on a canvas;
// or a compare block's variants stacked on one scale. Hover describes a slice, a click selects
// its step (details below, its slices outlined on every lane).
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PlanStep } from '../../../shared/plan/types.js';
import type { StepView } from '../ui/view';
import { compareRepeats, defaultChoice, loadCompare, type CompareChoice } from './compare';
import { TimelineController, type Hover, type TimelineElements } from './controller';
import { describeSlice, stepsByIndex } from './describe';
import { p2pFlows } from './flows';
import { attachInput } from './input';
import { AXIS_HEIGHT, LABEL_WIDTH, layoutRows } from './layout';
import { Legend } from './Legend';
import { OVERVIEW_HEIGHT } from './overview';
import { downloadPng } from './png';
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
  const layout = useMemo(() => layoutRows(model), [model, version]);
  const steps = useMemo(() => stepsByIndex(record.steps), [record.steps, record.steps.length]);
  const [hover, setHover] = useState<Hover | null>(null);
  const [selected, setSelected] = useState<number | null>(null);

  const root = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const overview = useRef<HTMLCanvasElement>(null);
  const labels = useRef<HTMLDivElement>(null);
  const controller = useRef<TimelineController | null>(null);

  useEffect(() => {
    const elements: TimelineElements = {
      root: root.current!,
      canvas: canvas.current!,
      overview: overview.current!,
      labels: labels.current!,
    };
    const listener = { onHover: setHover, onSelect: setSelected };
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
    controller.current?.setModel(model, flows);
  }, [model, version, flows]);
  useEffect(() => controller.current?.setSelectedStep(selected), [selected]);

  const exportPng = useCallback(() => downloadPng(canvas.current!, model, layout, name, title ?? name), [model, layout, name, title]);
  const described = hover && hover.lane < model.lanes.length ? describeSlice(model, record, steps, hover.lane, hover.slice) : null;

  return (
    <div className="timeline" data-testid="timeline" tabIndex={0} ref={root} aria-label="Timeline">
      <TimelineToolbar
        source={record}
        mode={mode}
        choice={choice}
        repeats={choice ? compareRepeats(record, choice.compare) : []}
        onMode={setMode}
        onChoice={setChoice}
        onFit={() => controller.current?.fit()}
        onPng={exportPng}
      />
      <Legend model={model} version={version} />
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
              <div key={`h${row.y}`} className="timeline-group-header" style={{ height: row.height }} title={row.title}>
                {row.title}
              </div>
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
          {described && hover && <Tooltip description={described} x={hover.x} y={hover.y} boxWidth={canvas.current?.clientWidth ?? 0} />}
        </div>
      </div>
      {!model.lanes.length && (
        <p className="empty">{live ? 'Waiting for the first step to end…' : 'This run recorded no timeline events.'}</p>
      )}
      {selected !== null && (
        <StepDetails
          planStep={record.plan.steps[selected]}
          step={steps.get(selected)}
          onClose={() => setSelected(null)}
          stepViews={stepViews}
          onOpenStep={onOpenStep}
        />
      )}
    </div>
  );
}
