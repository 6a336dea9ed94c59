// The scenario editor, with Monaco (most of the page's code) loaded on first showing rather than
// with the page: the views and the run controls draw while it arrives.
import { lazy, Suspense, type ComponentProps } from 'react';
// Monaco reads its environment when its API loads; set with the page, it is there before the
// editor's chunk runs, whatever order the bundler gives that chunk's modules.
import './monaco-environment';

const Editor = lazy(() => import('./ScenarioEditor').then((m) => ({ default: m.ScenarioEditor })));

export type { MarkerSummary } from './problem-markers';

export function ScenarioEditor(props: ComponentProps<typeof Editor>) {
  return (
    <Suspense fallback={<div className="scenario-editor" data-testid="editor-loading" aria-busy="true" />}>
      <Editor {...props} />
    </Suspense>
  );
}
