/**
 * Results served many times unchanged (a tipset's Lotus JSON answers every ChainHead until the
 * head moves): registered here, their JSON is written once, as UTF-8 bytes, and the dispatcher
 * copies those bytes into each answer. Without it a third of a ChainHead went to the lossless
 * serializer, and a string answer of a kilobyte was then flattened and UTF-8-encoded again by
 * each layer below (fastify's length, node:http's header join, the socket write).
 */
import { stringifyJsonLossless } from '../types/index.js';

const encoded = new WeakMap<object, Buffer>();

/** Marks `json` as never modified again; returns it. */
export function sharedResult<T extends object>(json: T): T {
  encoded.set(json, Buffer.from(stringifyJsonLossless(json), 'utf8'));
  return json;
}

/** The UTF-8 JSON of a shared result, or undefined for any other value. */
export function sharedResultBytes(value: unknown): Buffer | undefined {
  return typeof value === 'object' && value !== null ? encoded.get(value) : undefined;
}
