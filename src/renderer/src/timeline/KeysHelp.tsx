// The `?` overlay: every key of the timeline and what the pointer does, from the one table that
// input.ts acts on.
import type { ReactNode } from 'react';
import { KEY_BINDINGS, POINTER_GESTURES } from './keys';

/** A key or a pointer gesture, and what it does. */
function HelpRow({ name, what, testId }: { name: ReactNode; what: string; testId?: string }) {
  return (
    <tr data-testid={testId}>
      <th>{name}</th>
      <td>{what}</td>
    </tr>
  );
}

export function KeysHelp({ onClose }: { onClose(): void }) {
  return (
    <div className="timeline-help" role="dialog" aria-label="Timeline keys" data-testid="timeline-help">
      <header>
        <h3>Timeline keys</h3>
        <span className="spacer" />
        <button type="button" className="small" onClick={onClose}>
          close
        </button>
      </header>
      <table>
        <tbody>
          {KEY_BINDINGS.map((b) => (
            <HelpRow key={b.action} name={<kbd>{b.keys}</kbd>} what={b.what} testId="timeline-help-key" />
          ))}
          {POINTER_GESTURES.map(([gesture, what]) => (
            <HelpRow key={gesture} name={gesture} what={what} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
