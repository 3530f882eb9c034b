/**
 * Lotus-compatible API tokens: JWTs signed with HS256 over the repo's secret, whose only claim is
 * `{"Allow": [permissions]}`. With the same secret, a token minted here is byte-identical to
 * Lotus's (header `{"alg":"HS256","typ":"JWT"}`), and tokens never expire: they are revoked by
 * changing the secret. Only HS256 verifies — `alg: none` and every other algorithm are refused.
 */
import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { LedgerError } from '../utils/errors.js';
import type { Permission } from './method.js';

/** The keystore name and KeyInfo type Lotus keeps the secret under. */
export const JWT_SECRET_KEY_NAME = 'auth-jwt-private';
export const JWT_SECRET_KEY_TYPE = 'jwt-hmac-secret';
const SECRET_LENGTH = 32;
/** Verified tokens remembered; a node sees few distinct tokens, so this bounds memory, not hits. */
const VERIFIED_CACHE_SIZE = 1024;

/** A token that does not verify: bad signature, wrong algorithm, malformed, or no `Allow` list. */
export class InvalidTokenError extends LedgerError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('ERR_INVALID_TOKEN', `JWT Verification failed: ${reason}`, options);
  }
}

export function generateJwtSecret(): Uint8Array {
  return new Uint8Array(randomBytes(SECRET_LENGTH));
}

export class TokenAuthority {
  readonly #secret: Uint8Array;
  /**
   * Tokens that verified, with their Allow list. A verdict cannot change while the secret stays
   * the same, and checking a signature costs more than the cheapest calls, so every request but
   * the first of a token skips it. Tokens with time claims (exp, nbf) are checked every time.
   */
  readonly #verified = new Map<string, string[]>();

  constructor(secret: Uint8Array) {
    if (secret.length < SECRET_LENGTH) throw new LedgerError('ERR_INVALID_ARGUMENT', 'the JWT secret is too short');
    this.#secret = secret;
  }

  async create(permissions: readonly Permission[]): Promise<string> {
    return new SignJWT({ Allow: [...permissions] }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(this.#secret);
  }

  /**
   * The Allow list of a token that verified before, without waiting (shared: do not modify it);
   * undefined when it must go through `verify`.
   */
  verifiedBefore(token: string): readonly string[] | undefined {
    return this.#verified.get(token);
  }

  /** The token's `Allow` list as it was minted (Lotus returns unknown entries too; they grant nothing). */
  async verify(token: string): Promise<string[]> {
    const known = this.#verified.get(token);
    if (known !== undefined) return [...known];
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.#secret, { algorithms: ['HS256'] }));
    } catch (error) {
      throw new InvalidTokenError((error as Error).message, { cause: error });
    }
    const allow = payload.Allow;
    if (!Array.isArray(allow) || !allow.every((p) => typeof p === 'string')) {
      throw new InvalidTokenError('the Allow claim is not a list of permissions');
    }
    if (payload.exp === undefined && payload.nbf === undefined) {
      if (this.#verified.size >= VERIFIED_CACHE_SIZE) this.#verified.clear();
      this.#verified.set(token, allow);
    }
    return [...allow];
  }
}
