// The live per-rank log; follows the end while the reader is at the end.
import { useEffect, useRef } from 'react';
import type { LogEntry } from '../ui/view';

export function RunLog({ entries }: { entries: LogEntry[] }) {
  const box = useRef<HTMLOListElement>(null);
  const atEnd = useRef(true);
  useEffect(() => {
    if (atEnd.current && box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [entries]);
  if (!entries.length)
    return (
      <p className="empty" data-testid="run-log-empty">
        Run a scenario to see each rank's results here.
      </p>
    );
  return (
    <ol
      className="run-log rank-lines"
      data-testid="run-log"
      ref={box}
      // It scrolls, so the keyboard must reach it to scroll it.
      tabIndex={0}
      aria-label="Run log: each rank's results"
      onScroll={(e) => {
        const el = e.currentTarget;
        atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {entries.map((entry) => (
        <li
          key={entry.id}
          className={`log-${entry.tone}`}
          data-testid="log-line"
          title={entry.tone === 'timing' ? entry.text.trim() : undefined}
        >
          {entry.text}
        </li>
      ))}
    </ol>
  );
}
