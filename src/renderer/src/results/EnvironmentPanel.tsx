// Where the run ran: host, CPUs, backend, GPUs, library versions and the environment variables
// that change how NCCL behaves.
import type { Environment } from '../../../shared/run/record/record.js';
import { ncclLibraryText } from '../../../shared/run/nccl/nccl-library.js';
import { formatBytes, formatComputeCapability } from '../ui/units';

function Pairs({ values }: { values: Record<string, string> }) {
  const keys = Object.keys(values).sort();
  if (!keys.length) return <span className="dim">none</span>;
  return (
    <>
      {keys.map((k) => (
        <div key={k}>
          <code>
            {k}={values[k]}
          </code>
        </div>
      ))}
    </>
  );
}

export function EnvironmentPanel({ environment: env }: { environment: Environment }) {
  return (
    <dl className="environment" data-testid="environment">
      <dt>host</dt>
      <dd>
        {env.host} ({env.platform})
      </dd>
      <dt>cpus</dt>
      <dd>
        {env.cpus} × {env.cpuModel}
      </dd>
      <dt>memory</dt>
      <dd>{formatBytes(env.memoryBytes)}</dd>
      <dt>backend</dt>
      <dd>
        {env.backend}
        {env.backendNote ? ` — ${env.backendNote}` : ''}
      </dd>
      <dt>GPUs</dt>
      <dd>
        {env.gpus.length === 0 ? (
          <span className="dim">none</span>
        ) : (
          env.gpus.map((g) => (
            <div key={g.index}>
              {g.index}: {g.name}, {formatBytes(g.memoryBytes)}, {g.busId}
              {g.computeCapability === undefined ? '' : `, compute capability ${formatComputeCapability(g.computeCapability)}`}
            </div>
          ))
        )}
      </dd>
      {env.ncclLibrary && (
        <>
          <dt>NCCL library</dt>
          <dd>{ncclLibraryText(env.ncclLibrary)}</dd>
        </>
      )}
      <dt>node</dt>
      <dd>{env.node}</dd>
      <dt>versions</dt>
      <dd>
        <Pairs values={env.versions} />
      </dd>
      <dt>env</dt>
      <dd>
        <Pairs values={env.env} />
      </dd>
    </dl>
  );
}
