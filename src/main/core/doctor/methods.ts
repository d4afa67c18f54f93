// doctor.run: the running Core's health report (the CLI's `doctor` asks this; it never builds a Core of its own).
import type { Handlers } from '../platform/index.js';
import { runDoctor, type DoctorDeps } from './runDoctor.js';

export function doctorMethods(deps: DoctorDeps) {
  return {
    'doctor.run': async ({ timeout_ms }) => runDoctor(deps, timeout_ms),
  } satisfies Partial<Handlers>;
}
