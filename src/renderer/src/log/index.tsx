// The Log tab: the live run's per-rank lines, as `clab run` prints them.
import '../ui/ui.css';
import './log.css';
import type { ViewDescriptor, ViewProps } from '../ui/view';
import { RunLog } from './RunLog';

export const logView: ViewDescriptor = {
  id: 'log',
  label: 'Log',
  component: ({ ctx }: ViewProps) => <RunLog entries={ctx.log} />,
  moments: ['run-started'],
};
