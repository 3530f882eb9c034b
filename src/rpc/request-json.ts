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

/** What one pass over a body finds: too deep to parse, and whether `JSON.parse` reads it exactly. */
interface BodyShape {
  readonly tooDeep: boolean;
  /**
   * Every number in it is an integer of at most 15 digits (no fraction, exponent or "-0"): a
   * double holds it exactly and writes it back digit for digit, so the built-in parser, several
   * times faster than a lossless one, gives the same values `plainJson` would.
   */
  readonly plainNumbers: boolean;
}

const MAX_PLAIN_DIGITS = 15;

function isNumberChar(c: number): boolean {
  // 0-9 . e E + -
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

function shapeOf(text: string, maxDepth: number): BodyShape {
  let depth = 0;
  let inString = false;
  let plainNumbers = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return { tooDeep: true, plainNumbers: false };
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i + 1 < text.length && isNumberChar(text.charCodeAt(i + 1))) i++;
      if (plainNumbers) plainNumbers = isPlainInteger(text, start, i + 1);
    }
  }
  return { tooDeep: false, plainNumbers };
}

function isPlainInteger(text: string, start: number, end: number): boolean {
  let from = start;
  if (text.charCodeAt(from) === 0x2d) {
    from++;
    if (text.charCodeAt(from) === 0x30) return false; // "-0…": a double would drop the sign
  }
  if (end - from > MAX_PLAIN_DIGITS || end === from) return false;
  for (let i = from; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
  }
  return true;
}

/** A parsed request body; `plain` when it holds no LosslessNumber (`plainJson` would only copy it). */
export interface ParsedBody {
  readonly value: unknown;
  readonly plain: boolean;
}

/** Parses a request body; any failure is a JSON-RPC parse error (-32700). */
export function parseRequestBody(text: string): ParsedBody {
  const shape = shapeOf(text, MAX_JSON_DEPTH);
  if (shape.tooDeep) {
    throw new JsonRpcError(
      JsonRpcErrorCode.ParseError,
      `Parse error: JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
    );
  }
  try {
    // JSON.parse keeps the last of duplicate keys, as Go's encoding/json does, and makes a
    // "__proto__" key an own data property, as plainJson does.
    if (shape.plainNumbers) return { value: JSON.parse(text), plain: true };
    // Go's encoding/json keeps the last of duplicate keys; lossless-json would refuse them.
    return { value: parse(text, null, { onDuplicateKey: ({ newValue }) => newValue }), plain: false };
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
