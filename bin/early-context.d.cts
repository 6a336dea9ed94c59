// Types of bin/early-context.cjs, which the core (src/main/core/run/workers.ts) bundles.
export declare function earlyContextLibrary(addon: string | null): string | null;
export declare function withEarlyContext(env: NodeJS.ProcessEnv, library: string | null, platform?: string): NodeJS.ProcessEnv;
