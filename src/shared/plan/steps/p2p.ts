// A send/recv step: one transfer between two ranks, by NCCL or by a copy engine.
import type { JsonPath } from '../../scenario/json-path.js';
import type { BasicStep } from '../../scenario/schema.js';
import { DEFAULT_PATTERN, type PlanBuilder, type StepAt } from '../builder.js';
import type { P2pAction, Transport } from '../types.js';

export type P2pStep = Extract<BasicStep, { op: 'send' | 'recv' }>;
/** What a transfer needs: a send/recv step, a group's item, or a size of a send sweep. */
export type P2pFields = Pick<P2pStep, 'from' | 'to' | 'count' | 'dtype' | 'data' | 'transport'>;

/** The action of a transfer; `groupTransport`: the transport of the group it is an item of. */
export function p2pAction(b: PlanBuilder, path: JsonPath, s: P2pFields, groupTransport?: Transport): P2pAction {
  b.rankAt([...path, 'from'], s.from, 0);
  b.rankAt([...path, 'to'], s.to, 0);
  if (s.from === s.to) b.issue([...path, 'to'], `a rank cannot send to itself (from and to are both ${s.from})`);
  const transport = s.transport ?? groupTransport;
  const dtype = b.dtypeOf(s.dtype);
  if (s.from < b.world && s.to < b.world && s.from !== s.to)
    b.checkValues(path, s.data, {
      dtype,
      inputLength: (rank) => (rank === s.from ? s.count : 0),
      chunked: false,
      what: `send ${s.from}→${s.to} of count ${s.count}`,
    });
  return {
    kind: 'p2p',
    from: s.from,
    to: s.to,
    dtype,
    count: s.count,
    data: s.data ?? b.defaults.data ?? DEFAULT_PATTERN,
    ...(transport === 'copy-engine' ? { transport } : {}),
  };
}

export function compileP2p(b: PlanBuilder, { path, origin, prefix }: StepAt, s: P2pStep): void {
  const how = s.transport === 'copy-engine' ? 'copy-engine transfer' : 'send/recv';
  const action = p2pAction(b, path, s);
  const perRank = b.perRankActions(path, s, s.perRank, (at, o) => p2pAction(b, at, o));
  b.push(path, s, `${prefix}${how} ${s.from}→${s.to}`, origin, action, { perRank });
}
