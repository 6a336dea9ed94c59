// Searching the slices (Ctrl+F or / on the timeline): the query, how many slices match and which
// one is selected, Enter / Shift+Enter (or the arrows) to go to the next / previous match.
import { useEffect, useRef } from 'react';

interface Props {
  query: string;
  /** Slices that match; null while the query is empty. */
  matches: number | null;
  /** Index of the selected match; -1 before the first jump. */
  current: number;
  /** Grows each time the search is asked for again, to bring the focus back to the field. */
  focusGeneration: number;
  onQuery(query: string): void;
  onStep(delta: 1 | -1): void;
  onClose(): void;
}

export function FindBar({ query, matches, current, focusGeneration, onQuery, onStep, onClose }: Props) {
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, [focusGeneration]);
  const count = matches === null ? '' : matches === 0 ? 'no match' : current < 0 ? `${matches} matches` : `${current + 1} of ${matches}`;
  return (
    <div className="timeline-find" role="search">
      <input
        ref={field}
        type="search"
        aria-label="Search slices"
        placeholder="Search slices: name, or #step"
        data-testid="timeline-search"
        value={query}
        onChange={(e) => onQuery(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') onStep(e.shiftKey ? -1 : 1);
          else if (e.key === 'Escape') onClose();
          else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'f') e.currentTarget.select();
          else return;
          e.preventDefault();
          e.stopPropagation();
        }}
      />
      <span className="dim" data-testid="timeline-search-count" data-matches={matches ?? ''} aria-live="polite">
        {count}
      </span>
      <button
        type="button"
        className="small"
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
        disabled={!matches}
        onClick={() => onStep(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="small"
        aria-label="Next match"
        title="Next match (Enter)"
        disabled={!matches}
        onClick={() => onStep(1)}
      >
        ↓
      </button>
      <button type="button" className="small" aria-label="Close the search" title="Close (Esc)" onClick={onClose}>
        ✕
      </button>
    </div>
  );
}
