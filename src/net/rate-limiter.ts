/**
 * Per-peer token buckets: each peer may make `burst` requests at once and `perSecond` after that,
 * so no single peer can keep the chain-exchange server (or the hello handler) busy.
 */
export interface RateLimit {
  readonly perSecond: number;
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

export class PeerRateLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Takes one token for the peer; false when it has none left. */
  tryTake(peer: string): boolean {
    const now = this.clock();
    const bucket = this.#buckets.get(peer) ?? { tokens: this.limit.burst, updated: now };
    bucket.tokens = Math.min(this.limit.burst, bucket.tokens + ((now - bucket.updated) / 1000) * this.limit.perSecond);
    bucket.updated = now;
    this.#buckets.set(peer, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  forget(peer: string): void {
    this.#buckets.delete(peer);
  }
}
