export { blake2b, blake2b32, blake2b160, blake2b256 } from './blake2b.js';
export * as bls from './bls.js';
export * as drand from './drand.js';
export { CryptoError } from './errors.js';
export { keccak256 } from './keccak.js';
export { DomainSeparationTag, drawRandomness, drawRandomnessFromDigest } from './randomness.js';
export * as secp256k1 from './secp256k1.js';
export {
  ethAddress as ethAddressFromPublicKey,
  recoverDigest as secp256k1RecoverDigest,
  signDigest as secp256k1SignDigest,
} from './secp256k1.js';
