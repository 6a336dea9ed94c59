// The side pane's tabs, one per view (app/views.ts); a dot marks news in a tab not shown.
import type { ViewDescriptor } from '../ui/view';
import './tabs.css';

interface Props {
  views: readonly ViewDescriptor[];
  active: string;
  fresh: Record<string, boolean>;
  onSelect(id: string): void;
}

export function Tabs({ views, active, fresh, onSelect }: Props) {
  return (
    <nav className="tabs" role="tablist">
      {views.map(({ id, label }) => (
        <button
          key={id}
          type="button"
          role="tab"
          aria-selected={active === id}
          className={active === id ? 'active' : ''}
          data-testid={`tab-${id}`}
          onClick={() => onSelect(id)}
        >
          {label}
          {fresh[id] && active !== id ? ' •' : ''}
        </button>
      ))}
    </nav>
  );
}
