// Files opened in the browser (Open… or dropped): a run record, even a broken one, is never taken
// for a scenario; what is wrong with a broken one is said with where it breaks.
import { describe, expect, it } from 'vitest';
import { syntheticRecord } from '../../../bench/timeline/synthetic-record';
import { classifyFileText, readFiles } from '../../../src/renderer/src/editor/file-io';
import { encodeRecordFile } from '../../../src/shared/run/record/record-file';
import { isRunRecordFile, MAX_RECORD_BYTES, recordTooLargeMessage } from '../../../src/shared/run/record/record-text';

const record = syntheticRecord({ ranks: 2, rounds: 1, warmup: 0, iters: 1, name: 'opened' });
const text = JSON.stringify(record, null, 2);
const scenario = '{\n  "version": 1,\n  "name": "a scenario"\n}\n';

describe('a file opened in the browser', () => {
  it('opens a whole run record as a replay', () => {
    expect(classifyFileText('x.run.json', text)).toEqual({ kind: 'run', path: 'x.run.json', record });
  });

  it('says a truncated .run.json is not a valid run record and where its JSON breaks, instead of opening it as a scenario', () => {
    // Cut after an item, as a copy that stopped between two writes leaves it.
    const cut = text.slice(0, text.indexOf(',\n', 300) + 2);
    const lines = cut.split('\n');
    expect(() => classifyFileText('cut.run.json', cut)).toThrow(
      `cut.run.json is not a valid run record: its JSON breaks at line ${lines.length}, column ${lines.at(-1)!.length + 1} (character ${cut.length} of ${cut.length}): the file ends too early`,
    );
    // Cut inside a string: where that string starts.
    expect(() => classifyFileText('cut.run.json', text.slice(0, text.indexOf('"createdAt"') + 5))).toThrow(
      /cut\.run\.json is not a valid run record: its JSON breaks at line \d+, column 3 .*: a string is not closed/,
    );
  });

  it('knows a truncated record by its first bytes even under another name', () => {
    expect(() => classifyFileText('download (1).json', text.slice(0, 5000))).toThrow(
      /^download \(1\)\.json is not a valid run record: its JSON breaks at line \d+, column \d+/,
    );
    expect(isRunRecordFile('download.json', JSON.stringify(record).slice(0, 40))).toBe(true);
  });

  it('names the schema path of a record whose JSON parses but whose fields are wrong', () => {
    const wrong = JSON.stringify({ ...record, world: 'two' });
    expect(() => classifyFileText('wrong.run.json', wrong)).toThrow(/^wrong\.run\.json is not a valid run record: world: /);
    const step = JSON.parse(text) as { steps: { verdict: unknown }[] };
    step.steps[0].verdict = 'maybe';
    expect(() => classifyFileText('verdict.run.json', JSON.stringify(step))).toThrow(
      /^verdict\.run\.json is not a valid run record: steps\.0\.verdict: /,
    );
  });

  it('still opens a scenario, even one with broken JSON, in the editor', () => {
    expect(classifyFileText('a.scenario.json', scenario)).toEqual({ kind: 'scenario', path: 'a.scenario.json', text: scenario });
    const broken = scenario.slice(0, 20);
    expect(classifyFileText('a.scenario.json', broken)).toEqual({ kind: 'scenario', path: 'a.scenario.json', text: broken });
  });
});

describe('a file picked with Open… in a browser', () => {
  it('is refused unread past the bound the lab opens, in the words the lab refuses it with', async () => {
    let read = false;
    const picked = {
      name: 'big.run.json',
      size: MAX_RECORD_BYTES + 1,
      text: () => ((read = true), Promise.resolve('')),
      arrayBuffer: () => ((read = true), Promise.resolve(new ArrayBuffer(0))),
    } as unknown as File;
    await expect(readFiles([picked])).rejects.toThrow(recordTooLargeMessage('big.run.json', MAX_RECORD_BYTES + 1));
    expect(read).toBe(false);
  });

  it('opens a record written packed (many events) as a replay, and names a cut one', async () => {
    const large = syntheticRecord({ ranks: 2, rounds: 400, warmup: 1, iters: 5, name: 'packed' });
    const utf8 = { encode: (t: string) => new TextEncoder().encode(t), decode: (b: Uint8Array) => new TextDecoder().decode(b) };
    const bytes = await new Blob(encodeRecordFile(large, utf8) as BlobPart[]).arrayBuffer();
    const [opened] = await readFiles([new File([bytes], 'large.run.json')]);
    expect(opened).toMatchObject({ kind: 'run', path: 'large.run.json' });
    expect(opened.kind === 'run' && opened.record.events.length).toBe(large.events.length);
    await expect(readFiles([new File([bytes.slice(0, -64)], 'cut.run.json')])).rejects.toThrow(
      /^cut\.run\.json is not a valid run record: events\./,
    );
  });
});
