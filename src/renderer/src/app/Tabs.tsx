// The side pane's tabs, one per view (app/views.ts); a dot marks news in a tab not shown. A
// tablist as WAI-ARIA's pattern has it: one tab in the Tab order, the arrow keys, Home and End
// move between tabs and show the one they reach.
import { useRef, type KeyboardEvent } from 'react';
import type { ViewDescriptor } from '../ui/view';
import './tabs.css';

interface Props {
  views: readonly ViewDescriptor[];
  active: string;
  fresh: Record<string, boolean>;
  onSelect(id: string): void;
}

/** The tab a key moves to from tab `at` of `count`, or null for a key that is not a tab move. */
export function tabAfterKey(key: string, at: number, count: number): number | null {
  switch (key) {
    case 'ArrowRight':
      return (at + 1) % count;
    case 'ArrowLeft':
      return (at - 1 + count) % count;
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return null;
  }
}

export function Tabs({ views, active, fresh, onSelect }: Props) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (e: KeyboardEvent) => {
    const next = tabAfterKey(
      e.key,
      views.findIndex((v) => v.id === active),
      views.length,
    );
    if (next === null) return;
    e.preventDefault();
    onSelect(views[next].id);
    list.current?.querySelectorAll<HTMLButtonElement>('[role=tab]')[next]?.focus();
  };
  return (
    <div className="tabs" role="tablist" aria-label="Views" ref={list} onKeyDown={onKeyDown}>
      {views.map(({ id, label }) => (
        <button
          key={id}
          type="button"
          role="tab"
          id={`tab-${id}`}
          aria-selected={active === id}
          tabIndex={active === id ? 0 : -1}
          className={active === id ? 'active' : ''}
          data-testid={`tab-${id}`}
          onClick={() => onSelect(id)}
        >
          {label}
          {fresh[id] && active !== id ? ' •' : ''}
        </button>
      ))}
    </div>
  );
}
