// Mouse, wheel and keys, as Perfetto has them: the wheel zooms around the pointer (sideways
// scrolling pans), dragging pans, W/S zoom and A/D pan while the timeline has focus; a click
// selects the step under the pointer; pressing or dragging in the overview moves the window there.
import type { TimelineController, TimelineElements, TimelineListener } from './controller';
import { wheelZoomFactor } from './viewport';

/** Pointer travel (px) below which a press and release is a click, not a drag. */
const CLICK_SLOP_PX = 3;
const KEY_ZOOM = 0.8;
const KEY_PAN = 0.1;

export function attachInput(c: TimelineController, el: TimelineElements, listener: TimelineListener): () => void {
  const { root, canvas, overview } = el;
  let pointerX: number | null = null;
  let press: { x: number; lastX: number; dragged: boolean } | null = null;
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
    press = { x, lastX: x, dragged: false };
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
    canvas.classList.add('dragging');
    c.pan(press.lastX - x);
    press.lastX = x;
  };
  const up = (e: PointerEvent) => {
    if (!press) return;
    canvas.classList.remove('dragging');
    if (!press.dragged) {
      const { x, y } = local(e, canvas);
      const hit = c.sliceAtPoint(x, y);
      listener.onSelect(hit ? c.stepOf(hit) : null);
    }
    press = null;
  };
  const leave = () => {
    pointerX = null;
    if (!press) listener.onHover(null);
  };
  const key = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || (e.target as HTMLElement).closest('select, input, textarea')) return;
    const k = e.key.toLowerCase();
    if (k === 'w') c.zoom(KEY_ZOOM, pointerX ?? undefined);
    else if (k === 's') c.zoom(1 / KEY_ZOOM, pointerX ?? undefined);
    else if (k === 'a') c.pan(-KEY_PAN * canvas.clientWidth);
    else if (k === 'd') c.pan(KEY_PAN * canvas.clientWidth);
    else return;
    e.preventDefault();
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
