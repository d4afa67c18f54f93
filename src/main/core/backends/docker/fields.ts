// The Docker backend's spec, declared once: the fields the form, `targets register` flags and the checks read.
import type { z } from 'zod';
import { declareSpec } from '../../../../shared/specFields.js';

export const dockerSpec = declareSpec({
  backend: 'docker',
  fields: [
    {
      key: 'docker_image',
      type: 'string',
      label: 'Image',
      help: 'the image of a container Switchboard manages',
      flag: '--image',
      placeholder: 'python:3.12',
    },
    {
      key: 'docker_container',
      type: 'string',
      label: 'Container',
      help: 'an existing container to attach to instead',
      flag: '--container',
      placeholder: 'or an existing container',
    },
    {
      key: 'docker_host',
      type: 'string',
      label: 'Docker host',
      help: 'the engine endpoint (default: $DOCKER_HOST, then the local socket)',
      advanced: true,
      placeholder: 'unix:///var/run/docker.sock',
    },
    {
      key: 'docker_cpus',
      type: 'number',
      label: 'CPUs',
      help: 'CPU limit of a managed container',
      min: 0,
      min_exclusive: true,
      advanced: true,
    },
    {
      key: 'docker_memory',
      type: 'string',
      label: 'Memory',
      help: 'memory limit of a managed container',
      advanced: true,
      placeholder: '2g',
      pattern: '^\\d+[kmgKMG]?$',
      pattern_message: 'docker_memory is a size such as 512m or 2g',
    },
    {
      key: 'docker_pids_limit',
      type: 'number',
      label: 'Process limit',
      help: 'most processes in a managed container',
      integer: true,
      min: 0,
      min_exclusive: true,
      advanced: true,
    },
    {
      key: 'docker_network',
      type: 'string',
      label: 'Network',
      help: 'the network a managed container joins',
      advanced: true,
      placeholder: 'bridge',
    },
    {
      key: 'docker_volumes',
      type: 'list',
      label: 'Volumes',
      help: 'host:container mounts of a managed container, one per line',
      advanced: true,
    },
    {
      key: 'docker_env',
      type: 'map',
      label: 'Environment',
      help: 'NAME=value variables of a managed container, one per line',
      private: true,
      advanced: true,
    },
    {
      key: 'docker_keep',
      type: 'boolean',
      label: 'Keep container',
      help: 'keep a managed container when the target is removed',
      advanced: true,
    },
    {
      key: 'docker_on_stop',
      type: 'select',
      options: ['stop', 'keep-running'],
      label: 'When the Core stops',
      help:
        'stop a managed container when its Core stops (default; the next use starts it again with its files), ' +
        'or keep it running',
      advanced: true,
    },
    {
      key: 'docker_shell',
      type: 'string',
      label: 'Shell',
      help: 'the shell commands and panes run in (default: sh for commands; bash, else sh, for panes)',
      advanced: true,
      placeholder: '/bin/sh',
    },
  ],
  exactly_one: [['docker_image', 'docker_container']],
  describe: (s) => s.docker_image ?? s.docker_container ?? '',
});

export const DockerSpec = dockerSpec.specSchema;
export type DockerSpec = z.infer<typeof DockerSpec>;
