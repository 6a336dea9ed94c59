// The installed package's root (where scenarios/ and out/renderer live), found from wherever this
// code was bundled to: dist/ (the CLI), out/main/ (Electron), or src/main/core/ (tests).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const PACKAGE_NAME = 'collective-lab';

export function findPackageRoot(baseDir: string = __dirname): string {
  for (let dir = baseDir; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === PACKAGE_NAME) return dir;
    if (dirname(dir) === dir) throw new Error(`the ${PACKAGE_NAME} package was not found above ${baseDir}`);
  }
}

/** The installed package's version, from its package.json. */
export function packageVersion(root: string = findPackageRoot()): string {
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
  return typeof version === 'string' ? version : 'unknown';
}
