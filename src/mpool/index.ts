/**
 * The message pool: admission, replace-by-fee, pruning, persistence of local messages, head
 * changes, selection for blocks and republishing; and gas estimation over the pool and the chain.
 */
export { type MpoolChain, mpoolChainOf } from './chain.js';
export {
  DEFAULT_MPOOL_CONFIG,
  type MpoolConfig,
  type MpoolConfigJson,
  mpoolConfigFromLotusJson,
  mpoolConfigToLotusJson,
  REPLACE_BY_FEE_MINIMUM_PERCENT,
  validateMpoolConfig,
} from './config.js';
export { GasEstimationError, GasEstimationErrorCode, MpoolError, MpoolErrorCode } from './errors.js';
export {
  capGasFee,
  DEFAULT_MAX_FEE,
  GasEstimator,
  type GasEstimatorOptions,
  type MessageSendSpec,
  MIN_GAS_PREMIUM,
  medianGasPremium,
  requireUnsetNonce,
} from './gas-estimate.js';
export { type GossipVerdict, gossipVerdict } from './gossip-verdict.js';
export { type CheckOptions, CheckStatusCode, checkMessages, type MessageCheckStatus } from './message-checks.js';
export {
  type AlongsideWrite,
  MAX_MESSAGE_SIZE,
  MessagePool,
  type MessagePoolOptions,
  type MpoolUpdate,
  MpoolUpdateType,
  type PublishListener,
  type UpdateListener,
} from './message-pool.js';
export { MAX_NONCE_GAP, minimumReplacementPremium, replacementPremium } from './message-set.js';
export {
  checkDelegatedRecipient,
  MessageSigner,
  type MessageSignFunction,
  type PushMessageSpec,
} from './message-signer.js';
