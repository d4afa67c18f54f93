// The face of core/targets: what other folders may import from it (docs/architecture.md).
export { listTargets } from './listTargets.js';
export { targetMethods } from './methods.js';
export { healthProbe, type ProbeOutcome, probeTarget } from './probeTarget.js';
export { defaultHealthTiming, type HealthTiming, TargetHealth, watchedTargets } from './targetHealth.js';
export { runsOnThisMachine, targetSandbox } from './targetSandbox.js';
export { TargetsChanged } from './targetsChanged.js';
export { TargetTable } from './targetTable.js';
