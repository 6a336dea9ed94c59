// "SVG": the visible window of the timeline as a picture, downloaded as <name>-timeline.svg: the
// lanes shown (collapsed groups left out), their slices in the window, the title and legend as
// the PNG has them. Drawn by the shared SVG writer, which the HTML report's overview uses too.
import { timelineSvg } from '../../../shared/export/svg/timeline.js';
import { downloadBlob, fileStem } from '../ui/download';
import { shownLanes, type Layout } from './layout';
import { opsIn, type TimelineModel } from './model';
import { OP_COLOURS, OPS } from './ops';
import type { Viewport } from './viewport';

export const svgFileName = (name: string): string => `${fileStem(name)}-timeline.svg`;

export function timelinePicture(model: TimelineModel, layout: Layout, view: Viewport, title: string): string {
  return timelineSvg({
    title,
    start: view.start,
    end: view.end,
    legend: opsIn(model).map((op) => ({ label: OPS[op], colour: OP_COLOURS[op] })),
    lanes: shownLanes(layout).map((i) => {
      const { name, slices } = model.lanes[i];
      const spans = [];
      for (let k = 0; k < slices.count; k++) spans.push({ start: slices.start[k], end: slices.end[k], colour: OP_COLOURS[slices.op[k]] });
      return { name, spans };
    }),
  });
}

export function downloadSvg(model: TimelineModel, layout: Layout, view: Viewport, name: string, title: string): void {
  downloadBlob(svgFileName(name), new Blob([timelinePicture(model, layout, view, title)], { type: 'image/svg+xml' }));
}
