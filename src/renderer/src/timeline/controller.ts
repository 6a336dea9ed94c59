// The imperative side of the view: holds the window of time, the selected slice and the measured
// range, draws on animation frames (never more than one per frame), keeps the canvases sized to
// their box and the device's pixel ratio, and writes what the last frame drew onto the DOM
// (data-* attributes, read by tests and bench).
import { drawTimeline, type DrawStats } from './draw';
import type { Flow } from './flows';
import { recordFrame } from './frames';
import { laneAtY, type Layout } from './layout';
import { markMeasure, measureBetween, type Measure } from './measure';
import type { TimelineModel } from './model';
import { drawOverview, drawOverviewBitmap, OVERVIEW_HEIGHT, overviewRange } from './overview';
import { hatchPattern } from './paint';
import type { SearchResult } from './search';
import { findSlice, moveSelection, revealRange, type SelectionMove, type SliceIdentity } from './selection';
import { sliceAt, type SliceRef } from './slices';
import { centreOn, clampViewport, fitAll, MIN_SPAN_NS, panBy, zoomAround, type Viewport } from './viewport';
import { onColourScheme } from '../ui/theme';

export type { SliceRef } from './slices';

export interface TimelineElements {
  root: HTMLElement;
  canvas: HTMLCanvasElement;
  overview: HTMLCanvasElement;
  /** Holds the lane labels ([data-lane-index]) that get data-drawn and data-events. */
  labels: HTMLElement;
}

export interface Hover extends SliceRef {
  /** Pointer position in CSS px within the canvas. */
  x: number;
  y: number;
}

export interface TimelineListener {
  onHover(hover: Hover | null): void;
  /** The selected slice changed (a click, a key); its step is what the details show. */
  onSelect(slice: SliceRef | null): void;
  onMeasure(measure: Measure | null): void;
}

/** How near (px) the pointer must be to a slice thinner than that to point at it. */
const POINT_TOLERANCE_PX = 3;

export class TimelineController {
  private model: TimelineModel | null = null;
  private layout: Layout = { rows: [], height: 0 };
  private flows: readonly Flow[] = [];
  private view: Viewport = { start: 0, end: 1 };
  /** Until the user zooms or pans, the window is the whole run (and a live run's end stays in view). */
  private following = true;
  private selection: SliceRef | null = null;
  /** The selected slice's lane key and event: what finds it again after a live run's lanes and slices are re-sorted. */
  private selected: SliceIdentity | null = null;
  private search: SearchResult | null = null;
  private measure: Measure | null = null;
  private frame = 0;
  private width = 0;
  private overviewBitmap = document.createElement('canvas');
  private overviewStale = true;
  private hatch: CanvasPattern | null = null;
  private readonly resize: ResizeObserver;
  private readonly stopFollowingScheme: () => void;

  constructor(
    private readonly el: TimelineElements,
    private readonly listener: TimelineListener,
  ) {
    this.resize = new ResizeObserver(() => {
      this.overviewStale = true;
      this.schedule();
    });
    this.resize.observe(el.canvas.parentElement!);
    // The canvases are drawn in the theme's colours: draw again when the system switches theme.
    this.stopFollowingScheme = onColourScheme(() => {
      this.overviewStale = true;
      this.schedule();
    });
  }

  dispose(): void {
    this.resize.disconnect();
    this.stopFollowingScheme();
    cancelAnimationFrame(this.frame);
  }

  /** Another model (another run, compare instead of the whole run) forgets the selection and measure. */
  setModel(model: TimelineModel, flows: readonly Flow[], layout: Layout): void {
    if (model !== this.model) {
      this.following = true;
      if (this.model) {
        this.select(null);
        this.setMeasure(null);
      }
    }
    this.model = model;
    if (this.selected) this.reselect(model, this.selected);
    this.flows = flows;
    this.layout = layout;
    this.overviewStale = true;
    if (this.following) this.view = fitAll(model.endNs);
    this.schedule();
  }

  /** The same slice in a model that grew (once per new version, not per frame). */
  private reselect(model: TimelineModel, { key, event }: SliceIdentity): void {
    const at = this.selection;
    if (at && model.lanes[at.lane]?.key === key && model.lanes[at.lane].slices.event[at.slice] === event) return;
    this.select(findSlice(model, key, event));
  }

  setSearch(search: SearchResult | null): void {
    this.search = search;
    this.schedule();
  }

  /** Selects a slice (null: none), and with `reveal` moves the window to show it. */
  select(slice: SliceRef | null, reveal = false): void {
    this.selection = slice;
    const lane = slice && this.model?.lanes[slice.lane];
    this.selected = lane && slice ? { key: lane.key, event: lane.slices.event[slice.slice] } : null;
    if (slice && reveal && this.model) {
      const s = this.model.lanes[slice.lane].slices;
      const view = revealRange(this.view, s.start[slice.slice], s.end[slice.slice]);
      if (view !== this.view) this.moveTo(clampViewport(view, this.total));
    }
    this.listener.onSelect(slice);
    this.schedule();
  }

  /** Moves the selection by a key; false where there is nowhere to go. */
  moveSelection(move: SelectionMove): boolean {
    if (!this.model) return false;
    const next = moveSelection(this.model, this.layout, this.view, this.selection, move);
    if (next) this.select(next, true);
    return next !== null;
  }

  /** M: marks at the pointer's time, else at the selected slice (its start, then its end). */
  markMeasure(pointerX: number | null): boolean {
    let t: number;
    if (pointerX !== null) t = this.timeAt(pointerX);
    else if (this.selection && this.model) {
      const s = this.model.lanes[this.selection.lane].slices;
      t = this.measure && this.measure.end === null ? s.end[this.selection.slice] : s.start[this.selection.slice];
    } else return false;
    this.setMeasure(markMeasure(this.measure, t));
    return true;
  }

  /**
   * F, as in Perfetto: the window on the selected slice (a tenth of it to spare each side), else on
   * the measured range; false where there is neither.
   */
  zoomToSelection(): boolean {
    if (!this.model) return false;
    let range: Viewport | null = null;
    if (this.selection) {
      const s = this.model.lanes[this.selection.lane].slices;
      range = { start: s.start[this.selection.slice], end: s.end[this.selection.slice] };
    } else if (this.measure && this.measure.end !== null) range = { start: this.measure.start, end: this.measure.end };
    if (!range) return false;
    const spare = Math.max((range.end - range.start) / 10, MIN_SPAN_NS / 2);
    this.moveTo(clampViewport({ start: range.start - spare, end: range.end + spare }, this.total));
    return true;
  }

  /** Home and End: the window at the run's start or end, as wide as it is. */
  goTo(where: 'start' | 'end'): void {
    const span = this.view.end - this.view.start;
    const bounds = fitAll(this.total);
    const start = where === 'start' ? bounds.start : bounds.end - span;
    this.moveTo(clampViewport({ start, end: start + span }, this.total));
  }

  /** A Shift+drag from canvas x `x0` to `x1` (CSS px). */
  measureDrag(x0: number, x1: number): void {
    this.setMeasure(measureBetween(this.timeAt(x0), this.timeAt(x1)));
  }

  setMeasure(measure: Measure | null): void {
    this.measure = measure;
    this.listener.onMeasure(measure);
    this.schedule();
  }

  /** Back to the whole run, following a live run's end again. */
  fit(): void {
    this.following = true;
    if (this.model) this.view = fitAll(this.model.endNs);
    this.schedule();
  }

  private moveTo(view: Viewport): void {
    this.following = false;
    this.view = view;
    this.listener.onHover(null);
    this.schedule();
  }

  private get total(): number {
    return this.model?.endNs ?? 0;
  }

  /** The window of time shown now (what the SVG picture draws). */
  visibleWindow(): Viewport {
    return { ...this.view };
  }

  /** Time under a canvas x (CSS px). */
  timeAt(x: number): number {
    return this.view.start + (x / Math.max(1, this.width)) * (this.view.end - this.view.start);
  }

  zoom(factor: number, atX = this.width / 2): void {
    this.moveTo(zoomAround(this.view, this.timeAt(atX), factor, this.total));
  }

  /** Pans by `dx` CSS px of the canvas (positive: later in time). */
  pan(dx: number): void {
    this.moveTo(panBy(this.view, (dx / Math.max(1, this.width)) * (this.view.end - this.view.start), this.total));
  }

  /** Centres the window on the time under x (CSS px) of the overview strip. */
  centreOnOverview(x: number, overviewWidth: number): void {
    if (!this.model) return;
    const range = overviewRange(this.model);
    this.moveTo(centreOn(this.view, range.start + (x / Math.max(1, overviewWidth)) * (range.end - range.start), this.total));
  }

  /** The slice under a canvas point (CSS px), if any. */
  sliceAtPoint(x: number, y: number): SliceRef | null {
    if (!this.model) return null;
    const lane = laneAtY(this.layout, y);
    if (lane < 0) return null;
    const tolerance = (POINT_TOLERANCE_PX / Math.max(1, this.width)) * (this.view.end - this.view.start);
    const slice = sliceAt(this.model.lanes[lane].slices, this.timeAt(x), tolerance);
    return slice < 0 ? null : { lane, slice };
  }

  schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.draw());
  }

  private fitCanvas(canvas: HTMLCanvasElement, width: number, height: number, dpr: number): CanvasRenderingContext2D {
    const w = Math.max(1, Math.round(width * dpr));
    const h = Math.max(1, Math.round(height * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
    }
    const ctx = canvas.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return ctx;
  }

  private draw(): void {
    this.frame = 0;
    const model = this.model;
    if (!model) return;
    const began = performance.now();
    const dpr = window.devicePixelRatio || 1;
    this.width = this.el.canvas.parentElement!.clientWidth;
    if (this.following) this.view = fitAll(model.endNs);
    this.view = clampViewport(this.view, model.endNs);
    const ctx = this.fitCanvas(this.el.canvas, this.width, this.layout.height, dpr);
    this.hatch ??= hatchPattern(ctx);
    const stats = drawTimeline(ctx, {
      model,
      layout: this.layout,
      view: this.view,
      width: this.width,
      flows: this.flows,
      selectedStep: this.selection ? (model.lanes[this.selection.lane]?.slices.step[this.selection.slice] ?? null) : null,
      selectedSlice: this.selection,
      search: this.search,
      measure: this.measure,
      hatch: this.hatch,
    });
    const overviewWidth = this.el.overview.parentElement!.clientWidth;
    if (this.overviewStale) {
      drawOverviewBitmap(this.overviewBitmap, model, overviewWidth, dpr);
      this.overviewStale = false;
    }
    drawOverview(
      this.fitCanvas(this.el.overview, overviewWidth, OVERVIEW_HEIGHT, dpr),
      this.overviewBitmap,
      model,
      this.view,
      overviewWidth,
    );
    this.publish(stats);
    recordFrame({ at: began, ms: performance.now() - began, slices: stats.total });
  }

  private publish(stats: DrawStats): void {
    const root = this.el.root;
    root.dataset.visibleStartNs = String(Math.round(this.view.start));
    root.dataset.visibleEndNs = String(Math.round(this.view.end));
    root.dataset.slicesDrawn = String(stats.total);
    root.dataset.matchBars = String(stats.matchBars);
    root.dataset.selectedSlice = this.selection ? `${this.selection.lane}:${this.selection.slice}` : '';
    this.el.labels.querySelectorAll<HTMLElement>('[data-lane-index]').forEach((label) => {
      const lane = Number(label.dataset.laneIndex);
      label.dataset.drawn = String(stats.drawn[lane] ?? 0);
      label.dataset.events = String(stats.shown[lane] ?? 0);
    });
  }
}
