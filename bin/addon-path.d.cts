// Types of bin/addon-path.cjs, which src/addon/addon.ts bundles.
export declare const ADDON: string;
export declare function addonCandidates(baseDir: string, env?: NodeJS.ProcessEnv): string[];
