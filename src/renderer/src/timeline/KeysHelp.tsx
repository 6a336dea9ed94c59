// The `?` overlay: every key of the timeline and what the pointer does, from the one table that
// input.ts acts on.
import { KEY_BINDINGS, POINTER_GESTURES } from './keys';

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
            <tr key={b.action} data-testid="timeline-help-key">
              <th>
                <kbd>{b.keys}</kbd>
              </th>
              <td>{b.what}</td>
            </tr>
          ))}
          {POINTER_GESTURES.map(([gesture, what]) => (
            <tr key={gesture}>
              <th>{gesture}</th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
