/**
 * Shared pieces of the decoder fuzz suites: one fixed seed (printed in every test name, so a
 * failure can be replayed with `LEDGER_FUZZ_SEED=<seed>`), bounded runs (`LEDGER_FUZZ_RUNS`),
 * mutations of real encodings (bit flips, truncations, extensions, over-long CBOR heads, huge
 * declared lengths, indefinite lengths, CID versions of links) and the rule every decoder of outside bytes must keep:
 * a value, or the module's typed error (a LedgerError with one of the expected codes) — never a
 * TypeError, RangeError or plain Error, never a hang, never memory in proportion to a length the
 * bytes do not back.
 */
import fc from 'fast-check';
import { LedgerError } from '../../src/utils/errors.js';

export const SEED = Number(process.env.LEDGER_FUZZ_SEED ?? 20_261_126);
const RUNS = Number(process.env.LEDGER_FUZZ_RUNS ?? 1000);

/** fast-check parameters: the fixed seed and `scale` × the default run count. */
export function fuzzParams(scale = 1): fc.Parameters<unknown> {
  return { seed: SEED, numRuns: Math.max(1, Math.round(RUNS * scale)) };
}

/** One input must decode within this long, however hostile. */
const MAX_DECODE_MS = 1_000;
/** External memory a single decode may leave behind (a declared length of 2^32 would show far above it). */
const MAX_EXTERNAL_GROWTH = 64 << 20;

export interface DecodeRule {
  /** Codes of the typed errors the decoder may throw. */
  readonly codes: readonly string[];
  /** A fragment every error message must contain: the type or path it names. */
  readonly names?: string | RegExp;
}

/** What happened to one input; `value` when it decoded. */
export type DecodeOutcome<T> = { ok: true; value: T } | { ok: false; error: LedgerError };

function checkError(error: unknown, rule: DecodeRule, input: Uint8Array | string): LedgerError {
  const where = `input ${typeof input === 'string' ? input.slice(0, 200) : Buffer.from(input).toString('hex').slice(0, 400)}`;
  if (!(error instanceof LedgerError)) {
    const name = error instanceof Error ? error.constructor.name : typeof error;
    throw new Error(
      `${where}: the decoder threw ${name} (${String((error as Error)?.message ?? error)}), not a LedgerError`,
      {
        cause: error,
      },
    );
  }
  if (!rule.codes.includes(error.code)) {
    throw new Error(
      `${where}: unexpected error code ${error.code} (${error.message}); expected ${rule.codes.join(', ')}`,
    );
  }
  if (error.message.length === 0) throw new Error(`${where}: ${error.code} without a message`);
  if (rule.names !== undefined) expect(error.message).toMatch(rule.names);
  return error;
}

/** Runs `decode` on `bytes` and enforces the rule; returns what it gave. */
export function decodeChecked<T>(decode: () => T, rule: DecodeRule, input: Uint8Array | string): DecodeOutcome<T> {
  const external = process.memoryUsage().arrayBuffers;
  const started = performance.now();
  let outcome: DecodeOutcome<T>;
  try {
    outcome = { ok: true, value: decode() };
  } catch (error) {
    outcome = { ok: false, error: checkError(error, rule, input) };
  }
  const elapsed = performance.now() - started;
  if (elapsed > MAX_DECODE_MS) throw new Error(`decoding took ${elapsed.toFixed(0)} ms`);
  const grown = process.memoryUsage().arrayBuffers - external;
  if (grown > MAX_EXTERNAL_GROWTH) throw new Error(`decoding left ${grown} bytes of buffers behind`);
  return outcome;
}

/** The async form, for stream decoders; a decode that never settles fails the time bound. */
export async function decodeCheckedAsync<T>(
  decode: () => Promise<T>,
  rule: DecodeRule,
  input: Uint8Array,
  { timeoutMs = 5_000, maxGrowth = MAX_EXTERNAL_GROWTH }: { timeoutMs?: number; maxGrowth?: number } = {},
): Promise<DecodeOutcome<T>> {
  const external = process.memoryUsage().arrayBuffers;
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`decoding did not finish within ${timeoutMs} ms`)), timeoutMs);
  });
  let outcome: DecodeOutcome<T>;
  try {
    outcome = { ok: true, value: await Promise.race([decode(), hang]) };
  } catch (error) {
    if (error instanceof Error && error.message.startsWith('decoding did not finish')) throw error;
    outcome = { ok: false, error: checkError(error, rule, input) };
  } finally {
    clearTimeout(timer);
  }
  const grown = process.memoryUsage().arrayBuffers - external;
  if (grown > maxGrowth) throw new Error(`decoding left ${grown} bytes of buffers behind`);
  return outcome;
}

/** A CBOR item head: its offset, major type, head length and argument (-1 for indefinite lengths). */
export interface CborHead {
  readonly offset: number;
  readonly major: number;
  readonly headLength: number;
  readonly argument: bigint;
}

/**
 * The heads of a CBOR byte string, in order (RFC 8949 §3): a linear scan suffices because only
 * byte and text strings carry a payload after their head.
 */
export function cborHeads(bytes: Uint8Array): CborHead[] {
  const heads: CborHead[] = [];
  let at = 0;
  while (at < bytes.length) {
    const initial = bytes[at]!;
    const major = initial >> 5;
    const info = initial & 31;
    let headLength = 1;
    let argument = BigInt(info);
    if (info >= 24 && info <= 27) {
      const width = 1 << (info - 24);
      if (at + 1 + width > bytes.length) break;
      argument = 0n;
      for (let i = 1; i <= width; i++) argument = (argument << 8n) | BigInt(bytes[at + i]!);
      headLength = 1 + width;
    } else if (info === 31) {
      argument = -1n;
    } else if (info > 27) {
      break;
    }
    heads.push({ offset: at, major, headLength, argument });
    at += headLength;
    if ((major === 2 || major === 3) && argument > 0n) at += Number(argument);
  }
  return heads;
}

/** The head `major`/`argument` written with a `width`-byte argument (0 for the short form). */
export function cborHead(major: number, argument: bigint, width: 0 | 1 | 2 | 4 | 8): Uint8Array {
  if (width === 0) return Uint8Array.of((major << 5) | Number(argument));
  const out = new Uint8Array(1 + width);
  out[0] = (major << 5) | (24 + Math.log2(width));
  let rest = argument;
  for (let i = width; i >= 1; i--) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return out;
}

function splice(bytes: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length - remove + insert.length);
  out.set(bytes.subarray(0, at), 0);
  out.set(insert, at);
  out.set(bytes.subarray(at + remove), at + insert.length);
  return out;
}

/** Declared lengths that no input backs: cbor-gen's limits + 1, 2^31, 2^32 − 1, 2^53 − 1, 2^64 − 1. */
export const HUGE_LENGTHS = [8193n, (2n << 20n) + 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 53n - 1n, 2n ** 64n - 1n];

type HeadMutation = 'overlong' | 'huge' | 'indefinite' | 'major';

function mutateHead(bytes: Uint8Array, pick: number, kind: HeadMutation, choice: number): Uint8Array {
  const heads = cborHeads(bytes).filter((head) => head.major !== 7);
  if (heads.length === 0) return bytes;
  const head = heads[pick % heads.length]!;
  switch (kind) {
    case 'overlong': {
      // The same argument in a wider form than the minimal one (non-canonical; must be refused).
      const widths = ([1, 2, 4, 8] as const).filter(
        (w) => w + 1 > head.headLength && head.argument < 1n << BigInt(8 * w),
      );
      if (widths.length === 0 || head.argument < 0n) return bytes;
      return splice(
        bytes,
        head.offset,
        head.headLength,
        cborHead(head.major, head.argument, widths[choice % widths.length]!),
      );
    }
    case 'huge': {
      const major = head.major === 0 || head.major === 1 || head.major === 6 ? 2 + (choice % 4) : head.major;
      return splice(
        bytes,
        head.offset,
        head.headLength,
        cborHead(major, HUGE_LENGTHS[choice % HUGE_LENGTHS.length]!, 8),
      );
    }
    case 'indefinite':
      return splice(bytes, head.offset, head.headLength, Uint8Array.of(((2 + (choice % 4)) << 5) | 31));
    case 'major': {
      const major = (head.major + 1 + (choice % 7)) % 8;
      return splice(bytes, head.offset, 1, Uint8Array.of((major << 5) | (bytes[head.offset]! & 31)));
    }
  }
}

/** Damaged versions of real encodings: every way a peer or a file can bend valid bytes. */
export function mutationsOf(valid: readonly Uint8Array[]): fc.Arbitrary<Uint8Array> {
  if (valid.length === 0) throw new Error('mutationsOf needs at least one valid encoding');
  const base = fc.constantFrom(...valid);
  const bitFlips = fc.tuple(base, fc.array(fc.nat(), { minLength: 1, maxLength: 4 })).map(([bytes, positions]) => {
    const out = Uint8Array.from(bytes);
    for (const p of positions) out[Math.floor(p / 8) % out.length]! ^= 1 << (p % 8);
    return out;
  });
  const truncation = fc.tuple(base, fc.nat()).map(([bytes, at]) => bytes.subarray(0, at % bytes.length));
  const extension = fc
    .tuple(base, fc.uint8Array({ minLength: 1, maxLength: 16 }))
    .map(([bytes, tail]) => Uint8Array.from([...bytes, ...tail]));
  const replaced = fc
    .tuple(base, fc.nat(), fc.nat({ max: 8 }), fc.uint8Array({ maxLength: 12 }))
    .map(([bytes, at, remove, insert]) =>
      splice(bytes, at % (bytes.length + 1), Math.min(remove, bytes.length - (at % (bytes.length + 1))), insert),
    );
  const head = fc
    .tuple(base, fc.nat(), fc.constantFrom<HeadMutation>('overlong', 'huge', 'indefinite', 'major'), fc.nat())
    .map(([bytes, pick, kind, choice]) => mutateHead(bytes, pick, kind, choice));
  // The version byte of a tag-42 link (d8 2a 58 <len> 00 <version>): explicit v0, v2, v0's 0x12.
  const linkVersion = fc
    .tuple(base, fc.nat(), fc.constantFrom(0x00, 0x02, 0x12, 0x80))
    .map(([bytes, pick, version]) => {
      const links: number[] = [];
      for (let i = 0; i + 5 < bytes.length; i++) {
        if (bytes[i] === 0xd8 && bytes[i + 1] === 0x2a && bytes[i + 2] === 0x58 && bytes[i + 4] === 0x00)
          links.push(i + 5);
      }
      if (links.length === 0) return bytes;
      const out = Uint8Array.from(bytes);
      out[links[pick % links.length]!] = version;
      return out;
    });
  return fc.oneof(
    { weight: 1, arbitrary: linkVersion },
    { weight: 3, arbitrary: bitFlips },
    { weight: 2, arbitrary: truncation },
    { weight: 1, arbitrary: extension },
    { weight: 2, arbitrary: replaced },
    { weight: 4, arbitrary: head },
  );
}

/** Random bytes, biased towards CBOR-looking starts (arrays, byte strings, tags) so parsers get past byte 0. */
export const randomBytes: fc.Arbitrary<Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 256 }),
  fc
    .tuple(
      fc.constantFrom(0x80, 0x81, 0x82, 0x83, 0x84, 0x8a, 0x90, 0x98, 0x40, 0x58, 0xd8, 0x9f, 0xbf),
      fc.uint8Array({ maxLength: 256 }),
    )
    .map(([first, rest]) => Uint8Array.from([first, ...rest])),
);

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}
