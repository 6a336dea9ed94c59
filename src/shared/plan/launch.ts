// A plan's graph-launched steps against the backend chosen for its run: only nccl has CUDA graphs.
import { GRAPH_LAUNCH_NEEDS } from '../ops/launch.js';
import type { Plan } from './types.js';

/**
 * Why a run on `backend` cannot take the plan's graph-launched steps, in one line naming the first
 * and how many there are (`why`: how the backend was chosen, e.g. auto's note); null where it can.
 */
export function graphLaunchRefusal(plan: Pick<Plan, 'steps'>, backend: string, why: string | null = null): string | null {
  if (backend === 'nccl') return null;
  const graphed = plan.steps.filter((s) => s.launch === 'graph');
  if (!graphed.length) return null;
  const steps = graphed.length === 1 ? '1 step asks' : `${graphed.length} steps ask`;
  return `${graphed[0].path}: ${GRAPH_LAUNCH_NEEDS}; this run is on the ${backend} backend${why ? ` (${why})` : ''}, and ${steps} for it`;
}
