// Reads a file the lab was pointed at, never more than a bound: the bytes actually read are
// counted, since stat's size is 0 for /dev/zero and pipes, which never end. Where a door lists
// or opens files of a folder (serve's runs), only regular files are read, opened without blocking
// so that a FIFO named *.run.json never stalls the server. A door that serves others while it
// reads (clab serve) reads a chunk at a time (readCappedChunks): the event loop goes on between.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { fileKind } from './atomic-file.js';

export class FileTooLargeError extends Error {
  readonly code = 'CLAB_FILE_TOO_LARGE';
  constructor(
    readonly file: string,
    readonly bytes: number,
    readonly maxBytes: number,
    readonly exact: boolean,
  ) {
    super(
      `${file}: ${exact ? `${bytes} bytes is` : `more than ${maxBytes} bytes were read; that is`} larger than the ${maxBytes} bytes (${formatMiB(maxBytes)}) clab reads here`,
    );
  }
}

const formatMiB = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

export interface ReadCappedOptions {
  maxBytes: number;
  /** Refuse anything but a regular file, opened with O_NONBLOCK so that a FIFO cannot block. */
  regularOnly?: boolean;
  /** Read only the first maxBytes bytes and stop there, without error (a file's head). */
  head?: boolean;
}

const CHUNK_BYTES = 1024 * 1024;

const openFlags = (o: ReadCappedOptions) => constants.O_RDONLY | (o.regularOnly ? constants.O_NONBLOCK : 0);

/** Refuses, before a byte is read, what is not a regular file where only those are read, and a file larger than the bound. */
function checkOpened(file: string, s: Stats, o: ReadCappedOptions): void {
  if (o.regularOnly && !s.isFile())
    throw Object.assign(new Error(`${file} is ${fileKind(s)}, not a regular file`), { code: 'CLAB_NOT_REGULAR' });
  if (s.isFile() && s.size > o.maxBytes && !o.head) throw new FileTooLargeError(file, s.size, o.maxBytes, true);
}

export function readCapped(file: string, o: ReadCappedOptions): Buffer {
  const fd = openSync(file, openFlags(o));
  try {
    checkOpened(file, fstatSync(fd), o);
    const limit = o.head ? o.maxBytes : o.maxBytes + 1;
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < limit) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, limit - total));
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
    }
    if (total > o.maxBytes) throw new FileTooLargeError(file, total, o.maxBytes, false);
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

export const readCappedText = (file: string, o: ReadCappedOptions): string => readCapped(file, o).toString('utf8');

/** Reads one chunk of an open file into `into` at `position`: the bytes read, 0 at its end. */
export type ChunkReader = (handle: FileHandle, into: Buffer, position: number) => Promise<number>;

export const readChunk: ChunkReader = async (handle, into, position) => (await handle.read(into, 0, into.length, position)).bytesRead;

export interface ReadCappedChunksOptions extends Omit<ReadCappedOptions, 'head'> {
  /** How each chunk is read (readChunk). */
  read?: ChunkReader;
  /** Given the file's first `bytes` (all of a shorter file) before the rest is read; throws to read no further. */
  start?: { bytes: number; check(start: Buffer): void };
}

/** As readCapped (never a head), a chunk at a time, the event loop going on between chunks. */
export async function readCappedChunks(file: string, o: ReadCappedChunksOptions): Promise<Buffer> {
  const read = o.read ?? readChunk;
  const handle = await open(file, openFlags(o));
  try {
    checkOpened(file, await handle.stat(), o);
    const limit = o.maxBytes + 1; // one byte past the bound tells a file that grew, or never ends
    // The start is read alone, and checked before the rest is read.
    let start = o.start && { bytes: Math.min(o.start.bytes, limit), check: o.start.check };
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < limit) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, (start?.bytes ?? limit) - total));
      const n = await read(handle, chunk, total);
      if (n > 0) chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
      total += n;
      if (start && (n === 0 || total >= start.bytes)) {
        start.check(Buffer.concat(chunks, total));
        start = undefined;
      }
      if (n === 0) break;
    }
    if (total > o.maxBytes) throw new FileTooLargeError(file, total, o.maxBytes, false);
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}
