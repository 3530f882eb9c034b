/**
 * The network: a js-libp2p host with Filecoin's protocols — hello, chain exchange, block and
 * message gossip — plus peer scoring and per-peer rate limits. Importing this module installs the
 * `Promise.withResolvers` polyfill libp2p needs on Node 20.
 */
import './promise-with-resolvers.js';

export { BandwidthCounter, type BandwidthStats } from './bandwidth.js';
export { ChainExchangeClient, type ExchangeTransport, type FullTipSet } from './chain-exchange-client.js';
export {
  type BSTipSet,
  CHAIN_EXCHANGE_PROTOCOL,
  type CompactedMessages,
  decodeExchangeRequest,
  decodeExchangeResponse,
  ExchangeOptions,
  type ExchangeRequest,
  type ExchangeResponse,
  ExchangeStatus,
  encodeExchangeRequest,
  encodeExchangeResponse,
  exchangeStatusName,
  MAX_REQUEST_LENGTH,
} from './chain-exchange-codec.js';
export { type ExchangeChainSource, serveExchangeBytes, serveExchangeRequest } from './chain-exchange-server.js';
export { compactMessages, expandMessages } from './compacted-messages.js';
export { NetError, NetErrorCode } from './errors.js';
export { blocksTopic, type GossipVerdict, MAX_BLOCK_GOSSIP_BYTES, messagesTopic } from './gossip-topics.js';
export {
  decodeHelloMessage,
  decodeLatencyMessage,
  encodeHelloMessage,
  encodeLatencyMessage,
  HELLO_PROTOCOL,
  type HelloMessage,
  type LatencyMessage,
} from './hello-message.js';
export { createHost, type LedgerHost } from './host.js';
export {
  LedgerNetwork,
  type NetworkChain,
  type NetworkHooks,
  type NetworkOptions,
  type PeerInfo,
  type PeerRecord,
} from './network.js';
export { type BlockedEntries, PeerBlockList } from './peer-block-list.js';
export { loadOrCreatePeerKey, PEER_KEY_FILE } from './peer-identity.js';
export { type PeerPenalty, PeerScores, Penalty } from './peer-scores.js';
export { PeerRateLimiter, type RateLimit } from './rate-limiter.js';
