// The folder clab keeps its own files in (packed runs, runs' tokens): CLAB_HOME, else ~/.clab.
// An empty (or blank) CLAB_HOME, or HOME, counts as unset: taken as a path, it would put the cache and the
// tokens in whatever folder clab was started from.
import { homedir, userInfo } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

export function clabHome(): string {
  const chosen = process.env.CLAB_HOME;
  if (chosen?.trim()) return resolve(chosen);
  return join(userHome(), '.clab');
}

/** HOME, or the account's home folder where HOME is empty. */
function userHome(): string {
  const fromEnv = homedir();
  if (isAbsolute(fromEnv)) return fromEnv;
  let fromAccount = '';
  try {
    fromAccount = userInfo().homedir;
  } catch {
    // no account entry for this user (a container's arbitrary uid)
  }
  if (!isAbsolute(fromAccount))
    throw new Error(
      'cannot tell where ~/.clab is: HOME is empty and this user has no home folder; set CLAB_HOME to the folder clab may keep its cache and tokens in',
    );
  return fromAccount;
}
