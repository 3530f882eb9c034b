/**
 * Messages in flight: workers that keep pushing transfers to a node and record every
 * acknowledgement in the ledger. Wallet senders go through MpoolPushMessage (the node assigns the
 * nonce and signs, two calls in flight per sender); pre-signed senders through MpoolPush, signed
 * here with keys the node exported, one call in flight per sender so nonces stay in order. Values
 * are random, so a message re-signed after a restart never has the CID of one that was lost.
 */

import { join } from 'node:path';
import { secp256k1 } from '../../src/crypto/index.js';
import {
  Address,
  type Message,
  messageSigningBytes,
  SignatureType,
  signedMessageToLotusJson,
} from '../../src/types/index.js';
import { fromBase64 } from '../../src/utils/bytes.js';
import { devnetAccounts, startDevnetProcess } from './devnet-process.js';
import type { AckedMessage, MessageLedger } from './messages.js';
import { type ChaosContext, logFile } from './record.js';
import { errorText, isRefusal, type NodeRpc } from './rpc.js';

export interface PresignedSender {
  readonly address: Address;
  readonly privateKey: Uint8Array;
}

export interface PushLoadOptions {
  readonly rpc: NodeRpc;
  readonly ledger: MessageLedger;
  readonly random: () => number;
  readonly walletSenders: readonly string[];
  readonly presigned: readonly PresignedSender[];
  readonly to: string;
  /** Pause of each worker between its calls (ms). */
  readonly pauseMs?: number;
  /** Called with each acknowledgement, in the turn it arrives (a kill can follow at once). */
  readonly onAck?: (message: AckedMessage) => void;
  /** Per-call time limit (ms); a call without an answer is an unknown outcome. */
  readonly timeoutMs?: number;
  /**
   * Acknowledgements per sender after which its workers stop (default 150): the pool refuses more
   * than 1,000 pending messages of one sender (Lotus `maxActorPendingMessages`), which a stalled
   * miner would reach.
   */
  readonly maxAcksPerSender?: number;
}

const GAS_LIMIT = 2_000_000n;
const GAS_PREMIUM = 100_000n;

/**
 * A devnet process for push scenarios, in `<run dir>/<label>`: of its six funded accounts, three
 * push through the wallet (MpoolPushMessage) and three push pre-signed with their exported keys.
 */
export async function startPushDevnet(context: ChaosContext, label: string, mine: boolean) {
  const repo = join(context.dir, label);
  const options = { label, repo, logFile: logFile(context, label), accounts: 6, mine };
  const running = await startDevnetProcess(options, 180_000);
  const accounts = devnetAccounts(repo);
  const walletSenders = accounts.slice(0, 3);
  const presigned = await exportKeys(running.rpc, accounts.slice(3, 6));
  const senders = [...walletSenders, ...presigned.map((p) => p.address.toString('t'))];
  return { repo, options, running, walletSenders, presigned, senders, recipient: accounts[0] as string };
}

/** The keys of wallet senders, exported from the node (WalletExport needs admin). */
export async function exportKeys(rpc: NodeRpc, addresses: readonly string[]): Promise<PresignedSender[]> {
  return Promise.all(
    addresses.map(async (sender) => {
      const { PrivateKey } = await rpc.call<{ PrivateKey: string }>('WalletExport', [sender]);
      const privateKey = fromBase64(PrivateKey);
      const address = Address.newSecp256k1(secp256k1.publicKey(privateKey));
      if (address.toString('t') !== sender) throw new Error(`the exported key of ${sender} is ${address}'s`);
      return { address, privateKey };
    }),
  );
}

export class PushLoad {
  readonly #options: PushLoadOptions;
  #running = false;
  #workers: Promise<void>[] = [];
  /** Answers that were JSON-RPC errors, by message. */
  readonly refusals = new Map<string, number>();
  readonly #acks = new Map<string, number>();

  constructor(options: PushLoadOptions) {
    this.#options = options;
  }

  get refused(): number {
    let total = 0;
    for (const count of this.refusals.values()) total += count;
    return total;
  }

  start(): void {
    this.#running = true;
    for (const sender of this.#options.walletSenders) {
      this.#workers.push(this.#walletWorker(sender), this.#walletWorker(sender));
    }
    for (const sender of this.#options.presigned) this.#workers.push(this.#presignedWorker(sender));
  }

  /** Stops issuing calls and waits for those in flight (they fail fast once the node is gone). */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#workers);
    this.#workers = [];
  }

  #refusal(error: unknown): void {
    const text = errorText(error)
      .replace(/\b(bafy|t1|t0|f1)[a-z0-9]+/g, '…')
      .slice(0, 160);
    this.refusals.set(text, (this.refusals.get(text) ?? 0) + 1);
  }

  #value(): string {
    return String(1 + Math.floor(this.#options.random() * 1e9));
  }

  async #pause(): Promise<void> {
    await new Promise((r) => setTimeout(r, this.#options.pauseMs ?? 30));
  }

  #more(from: string): boolean {
    return this.#running && (this.#acks.get(from) ?? 0) < (this.#options.maxAcksPerSender ?? 150);
  }

  async #walletWorker(from: string): Promise<void> {
    const { rpc, ledger, to } = this.#options;
    while (this.#more(from)) {
      const message = {
        Version: 0,
        To: to,
        From: from,
        Nonce: 0,
        Value: this.#value(),
        GasLimit: 0,
        GasFeeCap: '0',
        GasPremium: '0',
        Method: 0,
        Params: '',
      };
      try {
        const signed = await rpc.call<{ CID: { '/': string }; Message: { Nonce: number } }>(
          'MpoolPushMessage',
          [message, null],
          this.#options.timeoutMs ?? 30_000,
        );
        this.#ack({ cid: signed.CID['/'], from, nonce: Number(signed.Message.Nonce), via: 'MpoolPushMessage' });
      } catch (error) {
        if (!isRefusal(error)) {
          ledger.uncertain(from);
          if (!this.#running) return;
        } else this.#refusal(error);
        await new Promise((r) => setTimeout(r, 200));
      }
      await this.#pause();
    }
  }

  async #presignedWorker(sender: PresignedSender): Promise<void> {
    const { rpc, ledger, to } = this.#options;
    const from = sender.address.toString('t');
    let nonce: bigint | undefined;
    let feeCap = 0n;
    while (this.#more(from)) {
      try {
        if (nonce === undefined) {
          nonce = BigInt(await rpc.call<number>('MpoolGetNonce', [from]));
          const head = await rpc.head();
          feeCap = BigInt(head.Blocks[0]?.ParentBaseFee ?? '100') * 10n + GAS_PREMIUM;
        }
        const message: Message = {
          to: Address.fromString(to),
          from: sender.address,
          nonce,
          value: BigInt(this.#value()),
          gasLimit: GAS_LIMIT,
          gasFeeCap: feeCap,
          gasPremium: GAS_PREMIUM,
          method: 0n,
          params: new Uint8Array(0),
        };
        const signed = {
          message,
          signature: {
            type: SignatureType.Secp256k1,
            data: secp256k1.sign(sender.privateKey, messageSigningBytes(message)),
          },
        };
        const cid = await rpc.call<{ '/': string }>(
          'MpoolPush',
          [signedMessageToLotusJson(signed)],
          this.#options.timeoutMs ?? 30_000,
        );
        this.#ack({ cid: cid['/'], from, nonce: Number(nonce), via: 'MpoolPush' });
        nonce++;
      } catch (error) {
        if (!isRefusal(error)) {
          ledger.uncertain(from);
          if (!this.#running) return;
        } else this.#refusal(error);
        // Ask the node again: the refused nonce may be taken, or free.
        nonce = undefined;
        await new Promise((r) => setTimeout(r, 200));
      }
      await this.#pause();
    }
  }

  #ack(message: AckedMessage): void {
    this.#acks.set(message.from, (this.#acks.get(message.from) ?? 0) + 1);
    this.#options.ledger.record(message);
    this.#options.onAck?.(message);
  }
}
