// Compare variants that set NCCL_ALGO / NCCL_PROTO (scenario `nccl`): each runs on a communicator
// of its own, made with those variables set (NCCL reads them as a communicator is made), the way a
// pair gets its own (pairs.ts): the variant's rank 0 makes the id at the variant's first
// block-begin step, the core relays it to every rank. One per setting, kept for later repeats and
// blocks and, like the run's, left to the system when the rank exits.
import type { NativeComm } from '../addon/native-api.js';
import type { Plan, PlanStep } from '../shared/plan/types.js';
import { communicationOnlyStreams } from '../shared/plan/compile.js';
import type { PairHost } from './pairs.js';
import type { NcclProfile } from './nccl-profile.js';

type BlockBegin = Extract<PlanStep['action'], { kind: 'block-begin' }>;

export class VariantComms {
  private readonly made = new Map<string, { comm: NativeComm; hash: string | null }>();

  constructor(
    private readonly plan: Plan,
    private readonly host: PairHost,
    private readonly profile: NcclProfile | null,
  ) {}

  /** The communicator a block-begin step's variant runs on, made at its first use; null: the run's. */
  async enter(step: PlanStep): Promise<NativeComm | null> {
    const a = step.action as BlockBegin;
    if (a.kind !== 'block-begin' || !a.nccl || this.host.backend !== 'nccl') return null;
    // One per setting: variants of several compare blocks that set the same share it.
    const key = `${a.nccl.algo ?? ''}|${a.nccl.proto ?? ''}`;
    let v = this.made.get(key);
    if (!v) {
      const joinStart = performance.now();
      const comm = await this.join(step.index, a.nccl);
      v = { comm, hash: this.profile?.lastJoined() ?? null };
      this.made.set(key, v);
      const set = [a.nccl.algo && `NCCL_ALGO=${a.nccl.algo}`, a.nccl.proto && `NCCL_PROTO=${a.nccl.proto}`].filter(Boolean).join(' ');
      // The time is read back from this line (shared/run/record/time-to-answer.ts).
      this.host.log(
        `compare variant ${a.variant}: a communicator of its own with ${set}, joined in ${Math.round(performance.now() - joinStart)} ms`,
      );
    }
    if (v.hash) this.profile?.use(v.hash);
    return v.comm;
  }

  /** Back to the run's communicator, after a variant's block. */
  leave(): void {
    this.profile?.use();
  }

  private async join(stepIndex: number, nccl: NonNullable<BlockBegin['nccl']>): Promise<NativeComm> {
    const { addon, backend, rank } = this.host;
    let id: string;
    if (rank === 0) {
      id = addon.createUniqueId({ backend, world: this.plan.world });
      this.host.sendPairId(stepIndex, id);
    } else {
      id = await this.host.pairId(stepIndex);
    }
    const saved = { NCCL_ALGO: process.env.NCCL_ALGO, NCCL_PROTO: process.env.NCCL_PROTO };
    const put = (k: 'NCCL_ALGO' | 'NCCL_PROTO', v: string | undefined) => {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    };
    if (nccl.algo) put('NCCL_ALGO', nccl.algo);
    if (nccl.proto) put('NCCL_PROTO', nccl.proto);
    try {
      return await addon.commInit({
        backend,
        id,
        rank,
        world: this.plan.world,
        device: this.host.deviceOf(rank),
        commStreams: communicationOnlyStreams(this.plan),
        registerBuffers: this.plan.registerBuffers,
      });
    } finally {
      put('NCCL_ALGO', saved.NCCL_ALGO);
      put('NCCL_PROTO', saved.NCCL_PROTO);
    }
  }
}
