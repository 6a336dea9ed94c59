// Gates and pauses, without a rank: who waits where, and what opens, pauses and lets go.
import { describe, expect, it } from 'vitest';
import { StepGates } from '../../../../../src/main/core/run/step-gates';

describe('a pair gate', () => {
  it('opens once every rank is there, at the time given, and is empty again', () => {
    const gates = new StepGates(3);
    expect(gates.arrive(0, 4, 10)).toBe(false);
    expect(gates.arrive(2, 4, 20)).toBe(false);
    expect(gates.gateOf(2)).toBe(4);
    expect([...gates.atGateNow()]).toEqual([
      [0, 4],
      [2, 4],
    ]);
    expect(gates.arrive(1, 4, 30)).toBe(true);
    expect(gates.opened.get(4)).toBe(30);
    expect(gates.atGateNow().size).toBe(0);
    expect(gates.gateOf(2)).toBeUndefined();
  });
});

describe('step mode', () => {
  it('pauses before the earliest step once every rank still running waits, and lets go those before it', () => {
    const gates = new StepGates(3);
    gates.waitBefore(0, 1);
    gates.waitBefore(1, 2);
    expect(gates.announce([0, 1, 2], 0)).toBeNull();
    gates.waitBefore(2, 1);
    expect(gates.announce([0, 1, 2], 100)).toBe(1);
    // Announced once.
    expect(gates.announce([0, 1, 2], 150)).toBeNull();
    expect(gates.pausedAt()).toBe(1);
    expect(gates.release(700)).toEqual({ step: 1, waitedMs: 600, ranks: [0, 2] });
    expect(gates.pausedAt()).toBeNull();
    expect(gates.release(800)).toBeNull();
    // Rank 1 still waits before step 2: alone now, it is the pause.
    expect(gates.announce([1], 900)).toBe(2);
  });

  it('counts a rank at a pair gate as waiting, and no rank running as no pause', () => {
    const gates = new StepGates(2);
    gates.waitBefore(0, 3);
    gates.arrive(1, 5, 0);
    expect(gates.announce([], 0)).toBeNull();
    expect(gates.announce([0, 1], 0)).toBe(3);
  });
});
