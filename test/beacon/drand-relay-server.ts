/**
 * A drand HTTP relay for tests, on 127.0.0.1 with an ephemeral port: it serves recorded rounds of
 * `vectors/drand/drand_vectors.json` at drand's paths (`/{chainhash}/info`, `/{chainhash}/public/{round}`,
 * `…/public/latest`, and the legacy un-prefixed ones), and can tamper with rounds, serve another
 * chain's info, hold its answers back, or lack rounds, as a broken or malicious relay would.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DrandChainInfo, parseDrandChainInfo } from '../../src/beacon/index.js';
import { readVectorJson } from '../vectors/vectors-dir.js';

export interface DrandVectorChainInfo {
  public_key: string;
  period: number;
  genesis_time: number;
  hash: string;
  groupHash: string;
  schemeID?: string;
  metadata?: { beaconID: string };
}

interface EntryVector {
  network: string;
  round: number;
  signature_hex: string;
  previous_signature_hex?: string | null;
}

export interface DrandVectors {
  networks: Record<string, { chain_info: DrandVectorChainInfo }>;
  entries: EntryVector[];
  filecoin_mainnet_schedule: Record<string, string>;
}

export const drandVectors = readVectorJson<DrandVectors>('drand', 'drand_vectors.json');

/** A network's chain info from the vectors, parsed as the node parses a configured one. */
export function vectorChainInfo(network: string): DrandChainInfo {
  return parseDrandChainInfo(drandVectors.networks[network]!.chain_info, `drand ${network} (vectors)`);
}

export interface RecordedRound {
  round: number;
  signature: string;
  previous_signature?: string;
}

/** The recorded rounds of `network` that a relay can serve whole (chained ones need their previous signature). */
export function recordedRounds(network: string): RecordedRound[] {
  return drandVectors.entries
    .filter((e) => e.network === network && (network === 'quicknet' || e.previous_signature_hex))
    .map((e) => ({
      round: e.round,
      signature: e.signature_hex,
      ...(e.previous_signature_hex ? { previous_signature: e.previous_signature_hex } : {}),
    }));
}

export interface RelayBehaviour {
  /** The chain info served at /info (default: the network's own). */
  chainInfo?: DrandVectorChainInfo;
  /** Rounds served with one bit of the signature flipped (randomness recomputed to match it). */
  tamper?: ReadonlySet<number>;
  /** Rounds answered 404. */
  missing?: ReadonlySet<number>;
  /** Hold every answer back this long (a relay slower than the client's timeout). */
  delayMs?: number;
}

export class DrandTestRelay {
  readonly requests: string[] = [];
  behaviour: RelayBehaviour;
  readonly #server: Server;
  readonly #network: string;
  readonly #rounds: Map<number, RecordedRound>;

  private constructor(server: Server, network: string, behaviour: RelayBehaviour) {
    this.#server = server;
    this.#network = network;
    this.behaviour = behaviour;
    this.#rounds = new Map(recordedRounds(network).map((r) => [r.round, r]));
  }

  static async start(network: string, behaviour: RelayBehaviour = {}): Promise<DrandTestRelay> {
    let relay: DrandTestRelay | undefined;
    const server = createServer((req, res) => {
      relay!.requests.push(req.url ?? '');
      const answer = relay!.answer(req.url ?? '');
      setTimeout(() => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer.body));
      }, relay!.behaviour.delayMs ?? 0).unref();
    });
    relay = new DrandTestRelay(server, network, behaviour);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  private answer(url: string): { status: number; body: unknown } {
    const info = this.behaviour.chainInfo ?? drandVectors.networks[this.#network]!.chain_info;
    // drand serves /{chainhash}/…, and the default chain (mainnet) also without the prefix. This relay
    // answers under any chain hash, as a misconfigured or lying relay would: the client must check.
    const path = url.replace(/^\/[0-9a-f]{64}\//, '/');
    if (path === '/info') return { status: 200, body: info };
    const match = /^\/public\/(latest|\d+)$/.exec(path);
    if (match === null) return { status: 404, body: { error: 'not found' } };
    const latest = Math.max(...this.#rounds.keys());
    const round = match[1] === 'latest' ? latest : Number(match[1]);
    const recorded = this.#rounds.get(round);
    if (recorded === undefined || this.behaviour.missing?.has(round)) return { status: 404, body: {} };
    let signature = recorded.signature;
    if (this.behaviour.tamper?.has(round)) {
      signature =
        (Number.parseInt(signature.slice(0, 2), 16) ^ 0x01).toString(16).padStart(2, '0') + signature.slice(2);
    }
    const randomness = createHash('sha256').update(Buffer.from(signature, 'hex')).digest('hex');
    return { status: 200, body: { ...recorded, signature, randomness } };
  }
}
