export {
  DEFAULT_CONFIG_TOML,
  DEFAULT_LISTEN_ADDRESS,
  LOG_LEVELS,
  type LogLevel,
  loadConfig,
  type NodeConfig,
  parseConfig,
  parseDurationMs,
} from './config.js';
export { ConfigError, RepoLockedError } from './errors.js';
export { createLogger, type LoggerOptions } from './logger.js';
export { isNetworkName, NETWORK_NAMES, NETWORK_PRESETS, type NetworkName } from './network.js';
export { LedgerNode, type NodeOverrides, type StartOptions } from './node.js';
export { defaultRepoPath, REPO_ENV, Repo } from './repo.js';
export { RepoLock } from './repo-lock.js';
export { stopOnSignal } from './signals.js';
export { packageVersion } from './version.js';
