// Open Recent: the last files opened or saved, newest first, kept in userData/recent.json.
import { z } from 'zod';
import { writeFileAtomic } from '../core/ground/atomic-file.js';
import { readCappedText } from '../core/ground/read-capped.js';

export const MAX_RECENT = 10;

/** `path` first, without an older entry for it, and no more than MAX_RECENT. */
export function withRecent(list: readonly string[], path: string): string[] {
  return [path, ...list.filter((p) => p !== path)].slice(0, MAX_RECENT);
}

export class RecentFiles {
  private paths: string[];

  constructor(private readonly file: string) {
    this.paths = RecentFiles.load(file);
  }

  /** A missing or damaged list starts empty rather than keeping the app from opening. */
  private static load(file: string): string[] {
    try {
      const parsed = z.array(z.string()).safeParse(JSON.parse(readCappedText(file, { maxBytes: 1024 * 1024, regularOnly: true })));
      return parsed.success ? parsed.data.slice(0, MAX_RECENT) : [];
    } catch {
      return [];
    }
  }

  list(): readonly string[] {
    return this.paths;
  }

  add(path: string): void {
    this.update(withRecent(this.paths, path));
  }

  remove(path: string): void {
    this.update(this.paths.filter((p) => p !== path));
  }

  clear(): void {
    this.update([]);
  }

  private update(paths: string[]): void {
    this.paths = paths;
    writeFileAtomic(this.file, `${JSON.stringify(paths, null, 2)}\n`);
  }
}
