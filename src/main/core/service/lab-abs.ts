// The NCCL A/Bs the lab service has going (its startAb): each started in the runs folder through
// nccl-ab/start-ab.ts, its turns and its end sent as events, stopped through stopRun with its id.
import { randomUUID } from 'node:crypto';
import type { ApiEvent, ApiParams, ApiResult } from '../../../shared/run/api/api.js';
import { compileLoaded } from '../../../shared/plan/text.js';
import type { MachineAddon } from '../machine/machine.js';
import { resolveWorkerEntry } from '../ground/paths.js';
import type { LabRun } from '../run/run.js';
import { afterAnswer, prepareFromCall } from './calls.js';
import { abFolder, AbRefusal, prepareAb } from './nccl-ab/start-ab.js';

/** What the A/Bs take from the lab service that holds them. */
export interface AbHost {
  readonly runsDir: string;
  readonly loadAddon: () => MachineAddon;
  readonly workerEntry: string | undefined;
  emit(event: ApiEvent): void;
  /** Whether the lab is closing: no turn starts then. */
  closing(): boolean;
}

interface GoingAb {
  /** The side's run now going. */
  current: LabRun | null;
  stopped: boolean;
  ended: Promise<void>;
}

export class LabAbs {
  private readonly going = new Map<string, GoingAb>();

  constructor(private readonly host: AbHost) {}

  /** How many A/Bs are going. */
  get size(): number {
    return this.going.size;
  }

  /**
   * Refused at once on cpu or for a library that is no file; its turns (ab-turn) and its end
   * (ab-end, with the A/B file) follow as events.
   */
  async start({ text, file, backend, ranks, nccl, repeats }: ApiParams<'startAb'>): Promise<ApiResult<'startAb'>> {
    const { host } = this;
    const abId = `ab-${randomUUID()}`;
    const forward = afterAnswer((event) => host.emit(event));
    let done = 0;
    const started = prepareFromCall({ text, file, backend, ranks }, (scenario) => {
      // The plan's problems are said now, as startRun says them, not at the first turn.
      compileLoaded(scenario.loaded, { ranks: scenario.ranks });
      return prepareAb({
        ...scenario,
        libraries: nccl,
        repeats,
        folder: abFolder(scenario.loaded.scenario.name, new Date(), host.runsDir),
        run: { loadAddon: host.loadAddon, workerEntry: host.workerEntry ?? resolveWorkerEntry() },
        onPrepared: (prepared) => {
          const going = this.going.get(abId);
          if (host.closing() || going?.stopped) throw new AbRefusal(host.closing() ? 'the lab is closing' : 'stopped');
          if (going) going.current = prepared.run;
        },
        onTurn: (r) =>
          forward({
            type: 'ab-turn',
            abId,
            repeat: r.repeat,
            side: r.side,
            status: r.record.status,
            record: r.savedTo,
            done: ++done,
            total: 2 * repeats,
          }),
      });
    });
    if (!started.ok) return started;
    const ab = started.prepared;
    // Known before its first turn is prepared (start() prepares it at once).
    const going: GoingAb = { current: null, stopped: false, ended: Promise.resolve() };
    this.going.set(abId, going);
    going.ended = ab
      .start()
      .then(
        ({ file: written }) => forward({ type: 'ab-end', abId, file: written, error: null }),
        (e: Error) => forward({ type: 'ab-end', abId, file: null, error: e.message }),
      )
      .finally(() => this.going.delete(abId));
    return { ok: true, abId, file: ab.file, turns: ab.turns };
  }

  /** Stops the side running and the turns after it; false where no A/B of that id is going. */
  stop(abId: string): boolean {
    const ab = this.going.get(abId);
    if (!ab) return false;
    ab.stopped = true;
    ab.current?.stop();
    return true;
  }

  /** Stops every A/B's side now running; each one's end. */
  stopAll(reason: string): Promise<void>[] {
    const abs = [...this.going.values()];
    for (const ab of abs) ab.current?.stop(reason);
    return abs.map((ab) => ab.ended);
  }
}
