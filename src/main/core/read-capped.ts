// Reads a file the lab was pointed at, never more than a bound: the bytes actually read are
// counted, since stat's size is 0 for /dev/zero and pipes, which never end. Where a door lists
// or opens files of a folder (serve's runs), only regular files are read, opened without blocking
// so that a FIFO named *.run.json never stalls the server.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
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

export function readCapped(file: string, o: ReadCappedOptions): Buffer {
  const fd = openSync(file, constants.O_RDONLY | (o.regularOnly ? constants.O_NONBLOCK : 0));
  try {
    const s = fstatSync(fd);
    if (o.regularOnly && !s.isFile())
      throw Object.assign(new Error(`${file} is ${fileKind(s)}, not a regular file`), { code: 'CLAB_NOT_REGULAR' });
    if (s.isFile() && s.size > o.maxBytes && !o.head) throw new FileTooLargeError(file, s.size, o.maxBytes, true);
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
