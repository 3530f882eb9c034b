/**
 * Our own view of each peer's behaviour, beside gossipsub's: a peer that serves an invalid block,
 * a malformed response or too many requests loses points; at `banThreshold` it is disconnected and
 * refused for `banMs`. Lotus does the same through pubsub scoring and its peer manager.
 */
export const Penalty = {
  /** A block that failed validation, or a chain linked to one. */
  InvalidBlock: 100,
  /** A response or message that does not decode or breaks the protocol. */
  BadMessage: 20,
  /** A request above the peer's rate. */
  RateLimited: 5,
  /** A request that timed out. */
  Timeout: 2,
} as const;

export interface PeerPenalty {
  readonly peer: string;
  readonly points: number;
  readonly reason: string;
  readonly at: number;
}

export interface PeerScoresOptions {
  readonly banThreshold?: number;
  readonly banMs?: number;
  readonly clock?: () => number;
}

export class PeerScores {
  readonly #scores = new Map<string, number>();
  readonly #bannedUntil = new Map<string, number>();
  readonly #history: PeerPenalty[] = [];
  readonly #banThreshold: number;
  readonly #banMs: number;
  readonly #clock: () => number;
  /** Called when a peer crosses the ban threshold (the host disconnects it). */
  onBan: ((peer: string, reason: string) => void) | undefined;

  constructor(options: PeerScoresOptions = {}) {
    this.#banThreshold = options.banThreshold ?? -100;
    this.#banMs = options.banMs ?? 10 * 60_000;
    this.#clock = options.clock ?? Date.now;
  }

  score(peer: string): number {
    return this.#scores.get(peer) ?? 0;
  }

  penalize(peer: string, points: number, reason: string): void {
    const score = this.score(peer) - points;
    this.#scores.set(peer, score);
    this.#history.push({ peer, points, reason, at: this.#clock() });
    if (this.#history.length > 1000) this.#history.shift();
    if (score <= this.#banThreshold && !this.isBanned(peer)) {
      this.#bannedUntil.set(peer, this.#clock() + this.#banMs);
      this.onBan?.(peer, reason);
    }
  }

  /** A small reward for useful answers, so a peer's occasional timeout does not add up to a ban. */
  reward(peer: string, points = 1): void {
    this.#scores.set(peer, Math.min(0, this.score(peer) + points));
  }

  isBanned(peer: string): boolean {
    const until = this.#bannedUntil.get(peer);
    if (until === undefined) return false;
    if (until > this.#clock()) return true;
    this.#bannedUntil.delete(peer);
    this.#scores.set(peer, 0);
    return false;
  }

  penalties(peer?: string): PeerPenalty[] {
    return this.#history.filter((entry) => peer === undefined || entry.peer === peer);
  }
}
