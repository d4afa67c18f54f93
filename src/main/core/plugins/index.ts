// The face of core/plugins: what other folders may import from it (docs/architecture.md).
export {
  findPlugin,
  installedPlugins,
  installPlugin,
  offlineSpecSchemas,
  readEnabled,
  readPlugin,
  rememberedSecretReferences,
  writeEnabled,
} from './installedPlugins.js';
export { restartBackoff } from './pluginHost.js';
export { pluginMethods } from './pluginMethods.js';
export { Plugins } from './plugins.js';
