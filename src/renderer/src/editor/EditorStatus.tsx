// Under the editor: how many problems Monaco and the lab found and the first one, or the keys.
import type { MarkerSummary } from './problem-markers';

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function EditorStatus({ markers }: { markers: MarkerSummary }) {
  const count = markers.errors + markers.warnings;
  return (
    <div className={`editor-status ${markers.errors ? 'has-errors' : ''}`}>
      <span data-testid="editor-problems">
        {count === 0 ? 'No problems' : `${plural(markers.errors, 'error')}, ${plural(markers.warnings, 'warning')}`}
      </span>
      {markers.first ? (
        <span className="first-problem" title={markers.first}>
          {markers.first}
        </span>
      ) : (
        <span className="keys">Ctrl+Enter runs · Ctrl+Space completes · F8 next problem</span>
      )}
    </div>
  );
}
