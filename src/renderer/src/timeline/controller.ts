// The imperative side of the view: holds the window of time, draws on animation frames (never
// more than one per frame), keeps the canvases sized to their box and the device's pixel ratio,
// and writes what the last frame drew onto the DOM (data-* attributes, read by tests and bench).
import { drawTimeline, type DrawStats } from './draw';
import type { Flow } from './flows';
import { recordFrame } from './frames';
import { laneAtY, layoutRows, type Layout } from './layout';
import type { TimelineModel } from './model';
import { drawOverview, drawOverviewBitmap, OVERVIEW_HEIGHT, overviewRange } from './overview';
import { hatchPattern } from './paint';
import { sliceAt } from './slices';
import { centreOn, clampViewport, fitAll, panBy, zoomAround, type Viewport } from './viewport';
import { onColourScheme } from '../ui/theme';

export interface TimelineElements {
  root: HTMLElement;
  canvas: HTMLCanvasElement;
  overview: HTMLCanvasElement;
  /** Holds the lane labels ([data-lane-index]) that get data-drawn and data-events. */
  labels: HTMLElement;
}

export interface SliceRef {
  lane: number;
  slice: number;
}

export interface Hover extends SliceRef {
  /** Pointer position in CSS px within the canvas. */
  x: number;
  y: number;
}

export interface TimelineListener {
  onHover(hover: Hover | null): void;
  onSelect(step: number | null): void;
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
  private selectedStep: number | null = null;
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

  setModel(model: TimelineModel, flows: readonly Flow[]): void {
    if (model !== this.model) this.following = true;
    this.model = model;
    this.flows = flows;
    this.layout = layoutRows(model);
    this.overviewStale = true;
    if (this.following) this.view = fitAll(model.endNs);
    this.schedule();
  }

  setSelectedStep(step: number | null): void {
    this.selectedStep = step;
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

  stepOf(ref: SliceRef): number {
    return this.model!.lanes[ref.lane].slices.step[ref.slice];
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
      selectedStep: this.selectedStep,
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
    this.el.labels.querySelectorAll<HTMLElement>('[data-lane-index]').forEach((label) => {
      const lane = Number(label.dataset.laneIndex);
      label.dataset.drawn = String(stats.drawn[lane] ?? 0);
      label.dataset.events = String(stats.shown[lane] ?? 0);
    });
  }
}
