// Mouse, wheel and keys, as Perfetto has them: the wheel zooms around the pointer (sideways
// scrolling pans), dragging pans, Shift+drag measures; a click selects the slice under the
// pointer; pressing or dragging in the overview moves the window there. Keys (keys.ts) act while
// the timeline has focus: those that move the window, the selection or the measure act here, the
// others (search, help, full screen, Esc) go to the view through `onAction`.
import type { TimelineController, TimelineElements, TimelineListener } from './controller';
import { actionOf, type TimelineAction } from './keys';
import { wheelZoomFactor } from './viewport';

export interface InputListener extends TimelineListener {
  onAction(action: TimelineAction): void;
}

/** Pointer travel (px) below which a press and release is a click, not a drag. */
const CLICK_SLOP_PX = 3;
const KEY_ZOOM = 0.8;
const KEY_PAN = 0.1;

export function attachInput(c: TimelineController, el: TimelineElements, listener: InputListener): () => void {
  const { root, canvas, overview } = el;
  let pointerX: number | null = null;
  let press: { x: number; lastX: number; dragged: boolean; measure: boolean } | null = null;
  const local = (e: MouseEvent, of: HTMLElement) => {
    const r = of.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };

  const wheel = (e: WheelEvent) => {
    e.preventDefault();
    const { x } = local(e, canvas);
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) c.pan(e.deltaX);
    else c.zoom(wheelZoomFactor(e.deltaY), x);
  };
  const down = (e: PointerEvent) => {
    if (e.button !== 0) return;
    root.focus({ preventScroll: true });
    canvas.setPointerCapture(e.pointerId);
    const { x } = local(e, canvas);
    press = { x, lastX: x, dragged: false, measure: e.shiftKey };
  };
  const move = (e: PointerEvent) => {
    const { x, y } = local(e, canvas);
    pointerX = x;
    if (!press) {
      const hit = c.sliceAtPoint(x, y);
      listener.onHover(hit && { ...hit, x, y });
      return;
    }
    if (!press.dragged && Math.abs(x - press.x) < CLICK_SLOP_PX) return;
    press.dragged = true;
    if (press.measure) c.measureDrag(press.x, x);
    else {
      canvas.classList.add('dragging');
      c.pan(press.lastX - x);
    }
    press.lastX = x;
  };
  const up = (e: PointerEvent) => {
    if (!press) return;
    canvas.classList.remove('dragging');
    if (press.dragged && press.measure) c.measureDrag(press.x, local(e, canvas).x);
    if (!press.dragged) {
      const { x, y } = local(e, canvas);
      c.select(c.sliceAtPoint(x, y));
    }
    press = null;
  };
  const leave = () => {
    pointerX = null;
    if (!press) listener.onHover(null);
  };
  /** Acts on a key's action; false where it did nothing (so the page may have the key). */
  const act = (action: TimelineAction): boolean => {
    switch (action) {
      case 'zoom-in':
      case 'zoom-out':
        c.zoom(action === 'zoom-in' ? KEY_ZOOM : 1 / KEY_ZOOM, pointerX ?? undefined);
        return true;
      case 'pan-left':
      case 'pan-right':
        c.pan((action === 'pan-left' ? -KEY_PAN : KEY_PAN) * canvas.clientWidth);
        return true;
      case 'next-slice':
      case 'previous-slice':
      case 'lane-up':
      case 'lane-down':
        return c.moveSelection(action);
      case 'measure':
        return c.markMeasure(pointerX);
      case 'zoom-selection':
        return c.zoomToSelection();
      case 'run-start':
      case 'run-end':
        c.goTo(action === 'run-start' ? 'start' : 'end');
        return true;
      default:
        listener.onAction(action);
        return true;
    }
  };
  const key = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.closest('select, input, textarea')) return;
    // A focused button (a group header, the toolbar's) takes Enter and Space itself.
    if (target.closest('button') && (e.key === 'Enter' || e.key === ' ')) return;
    const action = actionOf(e);
    if (action && act(action)) e.preventDefault();
  };
  let overviewPressed = false;
  const overviewDown = (e: PointerEvent) => {
    if (e.button !== 0) return;
    overviewPressed = true;
    overview.setPointerCapture(e.pointerId);
    c.centreOnOverview(local(e, overview).x, overview.clientWidth);
  };
  const overviewMove = (e: PointerEvent) => {
    if (overviewPressed) c.centreOnOverview(local(e, overview).x, overview.clientWidth);
  };
  const overviewUp = () => {
    overviewPressed = false;
  };

  const bindings: [HTMLElement, string, EventListener, AddEventListenerOptions?][] = [
    [canvas, 'wheel', wheel as EventListener, { passive: false }],
    [canvas, 'pointerdown', down as EventListener],
    [canvas, 'pointermove', move as EventListener],
    [canvas, 'pointerup', up as EventListener],
    [canvas, 'pointercancel', up as EventListener],
    [canvas, 'pointerleave', leave],
    [root, 'keydown', key as EventListener],
    [overview, 'pointerdown', overviewDown as EventListener],
    [overview, 'pointermove', overviewMove as EventListener],
    [overview, 'pointerup', overviewUp],
    [overview, 'pointercancel', overviewUp],
  ];
  for (const [target, type, handler, options] of bindings) target.addEventListener(type, handler, options);
  return () => {
    for (const [target, type, handler] of bindings) target.removeEventListener(type, handler);
  };
}
