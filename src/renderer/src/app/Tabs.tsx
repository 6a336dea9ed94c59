// The side pane's views: the live log, the results of the run shown, its timeline, what moved where (Learn), and the saved runs.
export type TabId = 'log' | 'results' | 'timeline' | 'learn' | 'runs';

const LABELS: Record<TabId, string> = { log: 'Log', results: 'Results', timeline: 'Timeline', learn: 'Learn', runs: 'Saved runs' };

interface Props {
  active: TabId;
  fresh: Partial<Record<TabId, boolean>>;
  onSelect(tab: TabId): void;
}

export function Tabs({ active, fresh, onSelect }: Props) {
  return (
    <nav className="tabs" role="tablist">
      {(Object.keys(LABELS) as TabId[]).map((id) => (
        <button
          key={id}
          type="button"
          role="tab"
          aria-selected={active === id}
          className={active === id ? 'active' : ''}
          data-testid={`tab-${id}`}
          onClick={() => onSelect(id)}
        >
          {LABELS[id]}{fresh[id] && active !== id ? ' •' : ''}
        </button>
      ))}
    </nav>
  );
}
