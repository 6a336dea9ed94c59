// Which transfer a GEMM on another stream follows (worker/gemm-follows.ts): nccl launches that GEMM
// as the transfer's ranks line up where the transfer runs no kernel. From overlap-gpu's plan, no process.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePlan } from '../../src/shared/plan/compile';
import { scenarioSchema } from '../../src/shared/scenario/schema';
import { gemmFollows } from '../../src/worker/gemm-follows';

const scenario = JSON.parse(readFileSync(new URL('../../scenarios/overlap-gpu.scenario.json', import.meta.url), 'utf8'));
const plan = compilePlan(scenarioSchema.parse(scenario));
const receives = (variant: string) =>
  plan.steps.filter((s) => s.origin.kind === 'compare' && s.origin.variant === variant && s.action.kind === 'group');

describe('the transfer a multiply on another stream follows', () => {
  it('is an overlapped variant’s async receive, on the rank that multiplies', () => {
    for (const variant of ['overlap on', 'overlap on, copy engine', 'overlap on, NCCL on 4 CTAs']) {
      const steps = receives(variant);
      expect(steps.length, variant).toBeGreaterThan(0);
      for (const s of steps) {
        expect(gemmFollows(plan, s, 1), `${variant} rank 1`).toBe(true);
        // Rank 0 sends and multiplies nothing.
        expect(gemmFollows(plan, s, 0), `${variant} rank 0`).toBe(false);
      }
    }
  });

  it('is never a transfer the multiply runs after on its own stream', () => {
    for (const variant of ['overlap off', 'overlap off, copy engine'])
      for (const s of receives(variant)) expect(gemmFollows(plan, s, 1), variant).toBe(false);
    // Nor a step outside compare blocks.
    const send = plan.steps.find((s) => s.origin.kind !== 'compare' && s.action.kind === 'p2p')!;
    expect(gemmFollows(plan, send, 1)).toBe(false);
  });
});
