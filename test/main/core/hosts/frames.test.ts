import { describe, expect, it } from 'vitest';
import { encodeFrame, FrameReader, parseJson, splitBody } from '../../../../src/main/core/hosts/frames';
import { startJson } from '../../../../src/main/core/hosts/remote-link';
import { Sealer, sessionKeys } from '../../../../src/main/core/hosts/session';
import { loadScenarioFile } from '../../../../src/main/core/library/scenario-file';
import { compileLoaded } from '../../../../src/shared/plan/text';

const json = (body: Buffer) => parseJson(splitBody(body).text);

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
      for (let i = 0; i < bytes.length; i += cut) got.push(...reader.push(bytes.subarray(i, i + cut)).map(json));
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
    expect(() => json(reader.push(frame)[0])).toThrow('a message that is not JSON');
  });
});

describe('sealed frames', () => {
  const keys = { core: sessionKeys('t'.repeat(64), 'w1', 'c1', 'core'), worker: sessionKeys('t'.repeat(64), 'w1', 'c1', 'worker') };
  const text = (s: string) => Buffer.from(s);
  const bodies = (frames: Buffer[]) => new FrameReader(1 << 20).push(Buffer.concat(frames));

  it("one end's sending key is the other's receiving key, and differs by direction and session", () => {
    expect(keys.core.send).toEqual(keys.worker.receive);
    expect(keys.core.receive).toEqual(keys.worker.send);
    expect(keys.core.send).not.toEqual(keys.core.receive);
    expect(sessionKeys('t'.repeat(64), 'w2', 'c1', 'core').send).not.toEqual(keys.core.send);
    expect(sessionKeys('u'.repeat(64), 'w1', 'c1', 'core').send).not.toEqual(keys.core.send);
  });

  it('opens what the peer sealed, in order', () => {
    const core = new Sealer(keys.core);
    const worker = new Sealer(keys.worker);
    const got = bodies([core.seal(text('{"a":1}')), core.seal(text('{"b":2}'))]).map((b) => worker.open(splitBody(b)).toString());
    expect(got).toEqual(['{"a":1}', '{"b":2}']);
  });

  it('refuses a frame changed, replayed, reordered, injected plain, or sealed by the wrong end', () => {
    const make = () => ({ core: new Sealer(keys.core), worker: new Sealer(keys.worker) });
    // Changed: one byte of the text.
    let s = make();
    const changed = bodies([s.core.seal(text('{"a":1}'))])[0];
    changed[changed.length - 2] ^= 1;
    expect(() => s.worker.open(splitBody(changed))).toThrow('message 0 fails its seal');
    // Replayed: the same frame twice.
    s = make();
    const once = bodies([s.core.seal(text('{"a":1}'))])[0];
    s.worker.open(splitBody(once));
    expect(() => s.worker.open(splitBody(once))).toThrow('message 1 fails its seal');
    // Reordered.
    s = make();
    const [first, second] = bodies([s.core.seal(text('{"a":1}')), s.core.seal(text('{"b":2}'))]);
    expect(() => s.worker.open(splitBody(second))).toThrow('message 0 fails its seal');
    expect(first).toBeDefined();
    // Plain, after the handshake.
    s = make();
    expect(() => s.worker.open(splitBody(bodies([encodeFrame({ type: 'kill' })])[0]))).toThrow('an unsealed message after the handshake');
    // Reflected: the worker's own frame sent back to it.
    s = make();
    expect(() => s.worker.open(splitBody(bodies([s.worker.seal(text('{"a":1}'))])[0]))).toThrow('fails its seal');
  });
});

describe('a start message', () => {
  it('made with its plan once is the same message as made whole', () => {
    const plan = compileLoaded(loadScenarioFile('scenarios/all-in-one.scenario.json'), { ranks: 4 });
    for (const rank of [0, 3]) {
      const start = { type: 'start' as const, v: 1 as const, runId: 'r', rank, backend: 'cpu' as const, plan, stepMode: true };
      expect(JSON.parse(startJson(start))).toEqual({ type: 'm', m: start });
    }
  });
});
