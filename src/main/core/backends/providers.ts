// The second face of core/backends: the built-in providers, which load ssh2, dockerode and node-pty. Apart from
// index.ts, so that what needs only the light face (types, declarations, the shell kit) does not reach them.
export { builtinProviders } from './builtins.js';
export { dockerProvider } from './docker/dockerProvider.js';
export { localProvider } from './local/localProvider.js';
export { configureSshPool, connectionPool } from './ssh/connectionPool.js';
export { sshHostMethods } from './ssh/sshHosts.js';
export { remoteEnvFile, sshProvider } from './ssh/sshProvider.js';
