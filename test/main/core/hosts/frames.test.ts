import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader } from '../../../../src/main/core/hosts/frames';
import { startFrame } from '../../../../src/main/core/hosts/listener';
import { loadScenarioFile } from '../../../../src/main/core/scenario-file';
import { compileLoaded } from '../../../../src/shared/plan/text';

describe('length-prefixed frames', () => {
  it('gives back each message whole, however the bytes are cut', () => {
    const bytes = Buffer.concat([
      encodeFrame({ type: 'a', n: 1 }),
      encodeFrame({ type: 'b', text: 'é'.repeat(1000) }),
      encodeFrame({ type: 'c' }),
    ]);
    for (const cut of [1, 3, 4, 5, 17, 1000, bytes.length]) {
      const reader = new FrameReader(1 << 20);
      const got: unknown[] = [];
      for (let i = 0; i < bytes.length; i += cut) got.push(...reader.push(bytes.subarray(i, i + cut)));
      expect(got.map((m) => (m as { type: string }).type)).toEqual(['a', 'b', 'c']);
    }
  });

  it('refuses a frame over its bound from its length alone, before the body arrives', () => {
    const reader = new FrameReader(100);
    const header = Buffer.alloc(4);
    header.writeUInt32BE(101, 0);
    expect(() => reader.push(header)).toThrow('a message of 101 bytes is over the bound of 100 bytes');
  });

  it('refuses a body that is not JSON', () => {
    const reader = new FrameReader(100);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 3]), Buffer.from('{x}')]);
    expect(() => reader.push(frame)).toThrow('a message that is not JSON');
  });
});

describe('a start message', () => {
  it('framed with its plan made once is the same message as framed whole', () => {
    const plan = compileLoaded(loadScenarioFile('scenarios/all-in-one.scenario.json'), { ranks: 4 });
    for (const rank of [0, 3]) {
      const start = { type: 'start' as const, v: 1 as const, runId: 'r', rank, backend: 'cpu' as const, plan, stepMode: true };
      const once = new FrameReader(1 << 24).push(startFrame(start));
      expect(once).toEqual(new FrameReader(1 << 24).push(encodeFrame({ type: 'm', m: start })));
    }
  });
});
