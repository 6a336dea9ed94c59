// What the run panel's Run sends: the backend, ranks and step mode as chosen, and `remote` only when
// "Ranks from a launcher" is on, its empty optional fields left out; the listen field's checks.
import { describe, expect, it } from 'vitest';
import {
  buildRunRequest,
  DEFAULT_LISTEN,
  listenProblem,
  REMOTE_OFF,
  remoteProblem,
  remoteRequest,
  type RemoteFields,
} from '../../../src/renderer/src/run/request';
import { runRequestSchema } from '../../../src/shared/run/api/api';

const on = (fields: Partial<RemoteFields> = {}): RemoteFields => ({ ...REMOTE_OFF, enabled: true, ...fields });
const choices = { backend: 'cpu' as const, ranks: 2, stepMode: false };

describe('buildRunRequest', () => {
  it('sends no remote while the section is off, whatever its fields hold', () => {
    const request = buildRunRequest('{}', '/s/a.scenario.json', {
      ...choices,
      remote: { ...REMOTE_OFF, listen: 'nonsense', launch: 'mpirun -np 2' },
    });
    expect(request).toEqual({ text: '{}', file: '/s/a.scenario.json', backend: 'cpu', ranks: 2, stepMode: false });
    expect('remote' in request).toBe(false);
    expect(runRequestSchema.safeParse(request).success).toBe(true);
  });

  it('sends the default listen address alone when enabled with nothing else', () => {
    const request = buildRunRequest('{}', null, { ...choices, remote: on() });
    expect(request.remote).toEqual({ listen: DEFAULT_LISTEN });
    expect(runRequestSchema.safeParse(request).success).toBe(true);
  });

  it('sends the launcher and token file, trimmed, when given', () => {
    const request = buildRunRequest('{}', null, {
      ...choices,
      stepMode: true,
      remote: on({ listen: ' 0.0.0.0:9000 ', launch: '  mpirun -np 4 -H a,b ', tokenFile: ' /shared/clab.token ' }),
    });
    expect(request).toEqual({
      text: '{}',
      file: null,
      backend: 'cpu',
      ranks: 2,
      stepMode: true,
      remote: { listen: '0.0.0.0:9000', launch: 'mpirun -np 4 -H a,b', tokenFile: '/shared/clab.token' },
    });
    expect(runRequestSchema.safeParse(request).success).toBe(true);
  });

  it('leaves out blank optional fields (the schema refuses empty strings)', () => {
    expect(remoteRequest(on({ listen: '7777', launch: '   ', tokenFile: '' }))).toEqual({ listen: '7777' });
    expect(remoteRequest(REMOTE_OFF)).toBeUndefined();
  });
});

describe('listenProblem', () => {
  it.each(['7777', '127.0.0.1:7777', 'node-1.cluster:7777', '[::1]:7777', '[fe80::1]:0', '0.0.0.0:65535'])('accepts %s', (listen) => {
    expect(listenProblem(listen)).toBeNull();
    // …as the API does.
    expect(runRequestSchema.safeParse({ text: '', file: null, backend: 'cpu', ranks: null, remote: { listen } }).success).toBe(true);
  });

  it.each(['', '   ', 'host', 'host:', ':7777', '::1:7777', 'a b:7777', '127.0.0.1:port', '123456'])(
    'refuses %j with a message',
    (listen) => {
      expect(listenProblem(listen)).toMatch(/port|PORT/);
    },
  );

  it('refuses a port past 65535 that the pattern lets through', () => {
    expect(listenProblem('127.0.0.1:70000')).toBe('The port must be from 0 to 65535.');
  });

  it('only matters while the section is on', () => {
    expect(remoteProblem({ ...REMOTE_OFF, listen: 'bad' })).toBeNull();
    expect(remoteProblem(on({ listen: 'bad' }))).not.toBeNull();
    expect(remoteProblem(on())).toBeNull();
  });
});

describe("the run panel's NCCL library", () => {
  it('is sent trimmed when given, and validated as the API takes it', () => {
    const request = buildRunRequest('{}', null, {
      ...choices,
      backend: 'nccl',
      remote: REMOTE_OFF,
      nccl: ' /venv/nvidia/nccl/lib/libnccl.so.2 ',
    });
    expect(request.nccl).toBe('/venv/nvidia/nccl/lib/libnccl.so.2');
    expect(runRequestSchema.safeParse(request).success).toBe(true);
  });

  it('is not sent when empty, nor for cpu ranks, which load no NCCL', () => {
    expect('nccl' in buildRunRequest('{}', null, { ...choices, backend: 'auto', remote: REMOTE_OFF, nccl: '  ' })).toBe(false);
    expect('nccl' in buildRunRequest('{}', null, { ...choices, backend: 'cpu', remote: REMOTE_OFF, nccl: '/x/libnccl.so.2' })).toBe(false);
  });

  it('is refused by the API when empty: absent means the default', () => {
    expect(runRequestSchema.safeParse({ text: '{}', file: null, backend: 'nccl', ranks: null, nccl: '' }).success).toBe(false);
  });
});
