import { describe, expect, it } from 'vitest';
import { fieldInfos, specSchemaOf } from '../shared/specFields.js';
import { formProblems } from './fieldProblems.js';

// Fields as the Docker backend declares them (the renderer gets them from backends.list).
const fields = fieldInfos([
  { key: 'docker_image', type: 'string', label: 'Image', help: 'image' },
  { key: 'docker_container', type: 'string', label: 'Container', help: 'container' },
  { key: 'docker_cpus', type: 'number', label: 'CPUs', help: 'CPU limit', min: 0, min_exclusive: true },
  {
    key: 'docker_pids_limit',
    type: 'number',
    label: 'Process limit',
    help: 'most processes',
    integer: true,
    min: 0,
    min_exclusive: true,
  },
  { key: 'docker_network', type: 'select', label: 'Network', help: 'network', options: ['none', 'bridge'] },
]).filter((f) => f.key.startsWith('docker_'));
const check = (spec: Record<string, unknown>) => {
  const r = specSchemaOf('docker', fields, [['docker_image', 'docker_container']]).safeParse({
    backend: 'docker',
    ...spec,
  });
  if (r.success) throw new Error('accepted');
  return formProblems(r.error, fields, spec);
};

describe("form problems in the form's words", () => {
  it('a number field given text says what a number looks like, under the field', () => {
    const p = check({ docker_image: 'debian', docker_cpus: 'two' });
    expect(p.byField.docker_cpus).toBe('CPUs must be a number, like 1.5');
    expect(p.other).toEqual([]);
  });

  it('bounds, whole numbers and choices speak the label', () => {
    const p = check({ docker_image: 'debian', docker_cpus: 0, docker_pids_limit: 2.5, docker_network: 'host' });
    expect(p.byField.docker_cpus).toBe('CPUs must be more than 0');
    expect(p.byField.docker_pids_limit).toBe('Process limit must be a whole number, like 2');
    expect(p.byField.docker_network).toBe('Network must be one of none, bridge');
  });

  it('a group needing exactly one of its keys belongs to no single field', () => {
    const p = check({});
    expect(p.other).toEqual([expect.stringMatching(/exactly one of docker_image or docker_container/)]);
  });
});
