/**
 * Chain types: byte-exact DAG-CBOR tuple codecs and Lotus JSON codecs.
 *
 * Conventions, the same for every type X:
 * - `encodeX(value)` / `decodeX(bytes)`: DAG-CBOR bytes; decoding is strict and names the failing field.
 * - `xToCborNode` / `xFromCborNode(node, path)`: the same on decoded trees, to embed X in other objects.
 * - `xToLotusJson` / `xFromLotusJson(json, path)`: Lotus JSON shapes (PascalCase, CIDs as links, big
 *   integers as decimal strings, bytes as base64 or null). Integers that Lotus writes as JSON numbers
 *   come out as `number`, or `bigint` beyond 2^53: serialize with `stringifyJsonLossless` and read
 *   request bodies with `parseJsonLossless`.
 * - uint64/int64 fields are `bigint`; token amounts are `bigint` attoFIL.
 * - A struct type is one `declareStruct` (struct.ts) from which all of the above and its JSON schema derive;
 *   its field kinds are `kinds.*` (field-kinds.ts), `addressKind`, `signatureKind`, `tipSetKeyKind`.
 */
export * from './actor.js';
export * from './address.js';
export * from './beacon-entry.js';
export * from './big-int.js';
export * from './block-header.js';
export * from './block-msg.js';
export * from './cbor.js';
export * from './cbor-fields.js';
export * from './cbor-node.js';
export * from './cid.js';
export * from './delegated-signature.js';
export * from './election-proof.js';
export * from './errors.js';
export * from './eth-address.js';
export * from './eth-transaction.js';
export * from './event.js';
export * as kinds from './field-kinds.js';
export { bigIntSchema, bytesSchema, cidSchema } from './field-kinds.js';
export * from './integers.js';
export * from './json.js';
export * from './message.js';
export * from './message-receipt.js';
export * from './post-proof.js';
export * from './signature.js';
export * from './signed-message.js';
export * from './state-root.js';
export * from './struct.js';
export * from './ticket.js';
export * from './tipset.js';
export * from './tipset-key.js';
export * from './token-amount.js';
export * from './tx-meta.js';
