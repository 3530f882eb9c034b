/**
 * Reading request bodies. Numbers are kept exactly as sent: an `id` is echoed digit for digit
 * (a LosslessNumber, which `stringifyJsonLossless` writes back verbatim), and parameters get the
 * integers the types' decoders expect — a number when safe, a bigint beyond 2^53 (Lotus writes
 * uint64 values as bare JSON numbers). Nesting depth is capped before parsing, so a hostile body
 * cannot exhaust the parser's stack.
 */
import { isLosslessNumber, parse } from 'lossless-json';
import { JsonRpcError, JsonRpcErrorCode } from './errors.js';
import { MAX_JSON_DEPTH } from './limits.js';

function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** Parses a request body; any failure is a JSON-RPC parse error (-32700). */
export function parseRequestBody(text: string): unknown {
  if (exceedsDepth(text, MAX_JSON_DEPTH)) {
    throw new JsonRpcError(
      JsonRpcErrorCode.ParseError,
      `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    // Go's encoding/json keeps the last of duplicate keys; lossless-json would refuse them.
    return parse(text, null, { onDuplicateKey: ({ newValue }) => newValue });
  } catch (error) {
    throw new JsonRpcError(JsonRpcErrorCode.ParseError, 'Parse error', { cause: error });
  }
}

function plainNumber(text: string): number | bigint {
  if (/^-?\d+$/.test(text)) {
    const value = Number(text);
    return Number.isSafeInteger(value) ? value : BigInt(text);
  }
  return Number(text);
}

/** A parsed value with its LosslessNumbers turned into numbers or (unsafe integers) bigints. */
export function plainJson(value: unknown): unknown {
  if (isLosslessNumber(value)) return plainNumber(value.value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Copied as an own property: a "__proto__" key must stay data, not become a prototype.
      Object.defineProperty(out, key, { value: plainJson(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  return value;
}
