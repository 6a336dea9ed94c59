// A run's graph-launched steps as the step lines, the sweep tables and the α-β model's notes read
// them (ops/launch.ts has the choices and the lesson).
import type { Launch } from '../ops/launch.js';

/** Whether a step's loop was a CUDA graph's replay on any of its ranks (each rank's result says). */
export const graphLaunched = (step: { ranks: readonly { launch?: Launch }[] }): boolean => step.ranks.some((r) => r.launch === 'graph');

/** The α-β model's note on a graph-launched sweep: what its α holds and what it leaves out. */
export const GRAPH_LATENCY_NOTE =
  "the sweep was graph-launched: its α is the GPU's own floor per hop, with no host launch cost in it (a host-launched sweep's α adds the CPU's cost of launching each op).";
