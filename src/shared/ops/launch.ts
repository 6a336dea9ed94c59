// Host-launched and graph-launched timing (a step's `launch`): the choices and what their difference
// teaches, in the words the scenario schema, `clab explain launch` and the refusals share (as each
// op's descriptor holds its teaching text). learn/launch.ts reads a run's results in these terms.

export const LAUNCHES = ['host', 'graph'] as const;
export type Launch = (typeof LAUNCHES)[number];

/** `clab explain`'s one line for the topic. */
export const LAUNCH_SUMMARY =
  'How a step\'s timed loop reaches the GPU: "host" (each op launched by the CPU) or "graph" (one CUDA graph replay, nccl-tests -G); what their difference teaches.';

/** The schema's description of `launch`, shown on hover in the editor. */
export const LAUNCH_DESCRIPTION =
  'How the timed loop reaches the GPU. "host" (default): the CPU launches every op, as an application does, so a small op\'s time holds the host\'s cost of launching it. "graph" (nccl only, nccl-tests\' -G): the timed ops are captured once in a CUDA graph and one replay is timed, the GPU running them back to back: its own floor. The two differ by the launch cost per op; at large sizes they meet. Warm-up stays host-launched; collective steps and sweeps outside compare blocks.';

/** One line per choice, for the editor's completion of the enum. */
export const LAUNCH_CHOICES: Record<Launch, string> = {
  host: 'The CPU launches every op of the timed loop (an NCCL call each): what an application sees, the launch cost included.',
  graph:
    "The timed loop's ops are captured once in a CUDA graph and one replay is timed (nccl-tests' -G): the GPU's own time per op, no host launch between ops. nccl backend only.",
};

/** `clab explain launch`: the lesson. */
export const LAUNCH_TEACHING = [
  'A host-launched loop is what an application sees: the CPU calls NCCL for every op, and each call does its bookkeeping and queues a kernel before the next can start. For a small op the GPU finishes its kernel in a few µs, often before the CPU has queued the next one, so the loop times the host as much as the GPU: time per op is about the larger of the two.',
  'A graph-launched loop ("launch": "graph", as nccl-tests -G) captures the timed ops once in a CUDA graph and times one replay of it: the CPU makes one launch, and the GPU runs the ops back to back. Its time per op is the GPU\'s own floor, the latency NCCL\'s kernels and the link leave.',
  "Run both (two sweeps, one per launch: scenarios/graph-vs-host.scenario.json): at small sizes their difference is the host's launch cost per op, the part of α a CUDA graph (as PyTorch's CUDA graphs do in training) takes away; at large sizes the bytes on the link dwarf it and the two meet.",
  'Warm-up stays host-launched, the output is checked outside the graph, and the per-iteration times (the spread and the timeline) come from the same ops launched one by one; time per op, algbw and busbw come from the replay. The cpu backend has no graphs and refuses the step.',
];

/** What a graph-launched step needs, as its refusals begin (validate on a cpu scenario; a rank without graphs). */
export const GRAPH_LAUNCH_NEEDS = '"launch": "graph" captures the timed loop in a CUDA graph, which only the nccl backend has';
