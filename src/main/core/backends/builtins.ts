// The built-in backend providers; plugins add theirs at run time.
import type { BackendProvider } from './provider.js';
import { localProvider } from './local/localProvider.js';
import { sshProvider } from './ssh/sshProvider.js';
import { dockerProvider } from './docker/dockerProvider.js';

export const builtinProviders: readonly BackendProvider[] = [localProvider, sshProvider, dockerProvider];
