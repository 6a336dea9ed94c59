// Upper bounds on every number and list a scenario may hold. A scenario past one is refused with
// the JSON path and the bound, before anything is expanded or allocated: no size, count or
// repeat can make validation loop for ever or exhaust memory. Each bound is far above what a
// workstation lab needs (a GPU has at most a few hundred GiB).
export const LIMITS = {
  /** NCCL settings of one scenario (its `env`). */
  envSettings: 32,
  /** Scenario text, checked before parsing (the shipped scenarios are a few KiB). */
  fileBytes: 2 * 1024 * 1024,
  /** Objects and lists inside one another (a scenario uses about 10; parsers recurse per level). */
  nesting: 64,
  /** Any size in bytes (sweep bounds, pairs). */
  bytes: 2 ** 40,
  /** Elements of one tensor. */
  count: 2 ** 40,
  iters: 100_000,
  /** Timed ops one CUDA graph holds (a graph-launched step's iters): each is a node NCCL prepares when the graph is made. */
  graphIters: 10_000,
  warmup: 100_000,
  timeoutMs: 24 * 3600 * 1000,
  compareRepeat: 1000,
  compareVariants: 16,
  /** m, n and k of a compute step. */
  gemmDimension: 1 << 17,
  ranks: 64,
  /** Steps written in the file: top level, in a group, in a variant. */
  steps: 10_000,
  objects: 64,
  /**
   * Explicit numbers of one `values` data kind, and of a whole plan once its steps are expanded
   * (every rank receives the plan, and a compare repeats its steps' data).
   */
  values: 1 << 20,
  /** Injected faults of one pairs step (a world of 64 has 4032 ordered pairs; a lesson needs a few). */
  faults: 256,
  /** Labels, ids, stream and variant names. */
  nameLength: 200,
  /** Sizes one sweep visits (8 B … 1 TiB by ×2 is 38). */
  sweepPoints: 64,
  /** Steps of the compiled plan, after sweeps, pairs and compare repeats are expanded. */
  planSteps: 100_000,
} as const;
