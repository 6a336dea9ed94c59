// The GPUs a run's forked ranks see: the one rule bin/clab.cjs's early ranks and the core share,
// kept in plain CommonJS (bin/visible-devices.cjs says why the ranks see only the GPUs up to the
// highest one the run uses), as bin/early-ranks.cjs runs before any bundle loads.
export { driverGpuCount, narrowedVisibleDevices } from '../../../../bin/visible-devices.cjs';
