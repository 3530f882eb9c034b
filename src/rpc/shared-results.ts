/**
 * Results served many times unchanged (a tipset's Lotus JSON answers every ChainHead until the
 * head moves): registered here, their JSON text is written once and reused by the dispatcher,
 * which otherwise spends a third of a ChainHead in the lossless serializer.
 */
import { stringifyJsonLossless } from '../types/index.js';

const texts = new WeakMap<object, string>();

/** Marks `json` as never modified again; returns it. */
export function sharedResult<T extends object>(json: T): T {
  texts.set(json, stringifyJsonLossless(json));
  return json;
}

/** The JSON text of a shared result, or undefined for any other value. */
export function sharedResultText(value: unknown): string | undefined {
  return typeof value === 'object' && value !== null ? texts.get(value) : undefined;
}
