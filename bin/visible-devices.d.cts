// Types of bin/visible-devices.cjs, which the core (src/main/core/run/visible-devices.ts) bundles.
export declare function driverGpuCount(): number;
export declare function narrowedVisibleDevices(env: NodeJS.ProcessEnv, devices: readonly number[], gpus: number): string | null;
