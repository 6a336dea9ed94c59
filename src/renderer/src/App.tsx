import { COLLECTIVES, COLLECTIVE_DESCRIPTORS } from '../../shared/ops/index.js';

// The renderer's first view: what each collective does, from the same descriptors the engine
// uses. The editor, run panel and results arrive with the desktop-app issue.
export function App() {
  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', margin: '2rem', maxWidth: '60rem' }}>
      <h1>Collective Lab</h1>
      <p>Run scenarios from a terminal with <code>clab run scenarios/all-in-one.scenario.json</code>.</p>
      <h2>Collectives</h2>
      <dl>
        {COLLECTIVES.map((name) => (
          <div key={name}>
            <dt><code>{name}</code></dt>
            <dd>{COLLECTIVE_DESCRIPTORS[name].teaching}</dd>
          </div>
        ))}
      </dl>
    </main>
  );
}
