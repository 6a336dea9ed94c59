// The basic steps, those a compare variant may hold too: each kind to its compiler.
import type { BasicStep } from '../../scenario/schema.js';
import type { PlanBuilder, StepAt } from '../builder.js';
import { compileBarrier } from './barrier.js';
import { compileCollective } from './collective.js';
import { compileCompute } from './compute.js';
import { compileGroup } from './group.js';
import { compileObject } from './object.js';
import { compileP2p } from './p2p.js';
import { compileWait } from './wait.js';

export function compileBasic(b: PlanBuilder, at: StepAt, s: BasicStep): void {
  switch (s.op) {
    case 'send':
    case 'recv':
      return compileP2p(b, at, s);
    case 'barrier':
      return compileBarrier(b, at, s);
    case 'wait':
      return compileWait(b, at, s);
    case 'compute':
      return compileCompute(b, at, s);
    case 'group':
      return compileGroup(b, at, s);
    case 'broadcast_object':
    case 'all_gather_object':
    case 'gather_object':
    case 'scatter_object':
      return compileObject(b, at, s);
    default:
      return compileCollective(b, at, s);
  }
}
