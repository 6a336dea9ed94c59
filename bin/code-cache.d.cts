// Types of bin/code-cache.cjs, which the rank's entry (src/worker/entry.ts) bundles.
export declare function requireWithCodeCache(file: string, parent: NodeJS.Module): unknown;
export declare function saveCodeCache(): void;
export declare function lastOutcome(): 'off' | 'absent' | 'accepted' | 'rejected';
