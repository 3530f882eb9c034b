/**
 * Every message a node acknowledged (MpoolPush answered its CID, MpoolPushMessage its signed
 * message), and the checks after a restart: each acknowledged message is on chain (found in an
 * included tipset, confirmed with StateSearchMsg) or pending (MpoolPending); each sender's pooled
 * nonces run without a gap from its state nonce, and MpoolGetNonce says the same. An acknowledged
 * message is a promise (Lotus `MpoolPush` returns only after `mp.addLocal` wrote it to the
 * datastore, `chain/messagepool/messagepool.go`), so any loss is a failure.
 */
import { isRefusal, type NodeRpc, type TipSetJson } from './rpc.js';

export type PushMethod = 'MpoolPush' | 'MpoolPushMessage';

export interface AckedMessage {
  readonly cid: string;
  readonly from: string;
  readonly nonce: number;
  readonly via: PushMethod;
}

export interface Verification {
  readonly lost: readonly AckedMessage[];
  /** `sender#nonce` for each nonce missing below a pooled one. */
  readonly gaps: readonly string[];
  /** Messages of our senders on chain or pending that were never acknowledged (only when asked). */
  readonly unacknowledged: readonly string[];
}

interface PendingJson {
  readonly CID: { '/': string };
  readonly Message: { From: string; Nonce: number };
}

const LOOKBACK_NO_LIMIT = -1;

export class MessageLedger {
  /** Acknowledged and not yet seen on chain. */
  readonly #open = new Map<string, AckedMessage>();
  /** Acknowledged nonces per sender. */
  readonly #ackedNonces = new Map<string, Set<number>>();
  /** Senders whose pushes had an unknown outcome (no answer): excluded from the unacknowledged check. */
  readonly #uncertain = new Set<string>();
  readonly #onChain = new Set<string>();
  /**
   * Nonces of our senders' messages in the tipsets scanned. The head's own messages are not in the
   * state StateGetActor reads (a tipset's state is its parent's, executed), nor pending any more.
   */
  readonly #includedNonces = new Map<string, Set<number>>();
  #scannedHeight = -1;
  acknowledged = 0;

  record(message: AckedMessage): void {
    this.acknowledged++;
    this.#open.set(message.cid, message);
    const nonces = this.#ackedNonces.get(message.from) ?? new Set<number>();
    nonces.add(message.nonce);
    this.#ackedNonces.set(message.from, nonces);
  }

  /** A push of `from` whose answer never came (the node died or hung): it may or may not be kept. */
  uncertain(from: string): void {
    this.#uncertain.add(from);
  }

  /**
   * Checks every open acknowledged message and the nonces of `senders`. A message found nowhere is
   * looked for twice more, a second apart (a restarted pool re-admits its stored messages), before
   * it counts as lost; a gap likewise must persist over three looks (nonces move while blocks land).
   */
  async verify(
    rpc: NodeRpc,
    senders: readonly string[],
    options: { unacknowledged?: boolean } = {},
  ): Promise<Verification> {
    let missing: AckedMessage[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 1_000));
      const pending = await this.#pending(rpc);
      await this.#scanChain(rpc);
      missing = [];
      for (const message of this.#open.values()) {
        if (this.#onChain.has(message.cid)) this.#open.delete(message.cid);
        else if (!pending.has(message.cid)) missing.push(message);
      }
      // The chain index is the authority (a scan could miss a tipset that became canonical meanwhile).
      for (const message of missing) {
        // An error ("failed to load message … not found", as Lotus says it) means not on chain either.
        const lookup = await rpc
          .call('StateSearchMsg', [null, { '/': message.cid }, LOOKBACK_NO_LIMIT, true])
          .catch((error: unknown) => {
            if (isRefusal(error)) return null;
            throw error;
          });
        if (lookup !== null) {
          this.#onChain.add(message.cid);
          this.#open.delete(message.cid);
        }
      }
      missing = missing.filter((m) => this.#open.has(m.cid));
      if (missing.length === 0) break;
    }
    for (const message of missing) this.#open.delete(message.cid);

    let gaps: string[] = [];
    let unacknowledged: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, 700));
      ({ gaps, unacknowledged } = await this.#nonces(rpc, senders, options.unacknowledged === true));
      if (gaps.length === 0 && unacknowledged.length === 0) break;
    }
    return { lost: missing, gaps, unacknowledged };
  }

  async #pending(rpc: NodeRpc): Promise<Map<string, PendingJson>> {
    const pending = (await rpc.call<PendingJson[] | null>('MpoolPending', [null], 60_000)) ?? [];
    return new Map(pending.map((p) => [p.CID['/'], p]));
  }

  /** Adds the chain CIDs of the messages included in tipsets above the last scan. */
  async #scanChain(rpc: NodeRpc): Promise<void> {
    const head = await rpc.head();
    for (let height = this.#scannedHeight + 1; height <= head.Height; height++) {
      const tipSet = await rpc.call<TipSetJson>('ChainGetTipSetByHeight', [height, head.Cids]);
      if (tipSet.Height !== height) continue; // a null round: the tipset below it was scanned already
      const messages = await rpc.call<{ Cid: { '/': string }; Message: { From: string; Nonce: number } }[] | null>(
        'ChainGetMessagesInTipset',
        [tipSet.Cids],
      );
      for (const { Cid, Message } of messages ?? []) {
        this.#onChain.add(Cid['/']);
        const nonces = this.#includedNonces.get(Message.From) ?? new Set<number>();
        nonces.add(Number(Message.Nonce));
        this.#includedNonces.set(Message.From, nonces);
      }
    }
    this.#scannedHeight = head.Height;
  }

  async #nonces(
    rpc: NodeRpc,
    senders: readonly string[],
    checkUnacknowledged: boolean,
  ): Promise<{ gaps: string[]; unacknowledged: string[] }> {
    const gaps: string[] = [];
    const unacknowledged: string[] = [];
    const pending = [...(await this.#pending(rpc)).values()];
    await this.#scanChain(rpc);
    for (const sender of senders) {
      const actor = await rpc.call<{ Nonce: number } | null>('StateGetActor', [sender, null]);
      const stateNonce = Number(actor?.Nonce ?? 0);
      const present = new Set(pending.filter((p) => p.Message.From === sender).map((p) => Number(p.Message.Nonce)));
      for (const nonce of this.#includedNonces.get(sender) ?? []) present.add(nonce);
      const next = Number(await rpc.call<number>('MpoolGetNonce', [sender]));
      const top = Math.max(stateNonce - 1, ...present);
      for (let nonce = stateNonce; nonce < top; nonce++) if (!present.has(nonce)) gaps.push(`${sender}#${nonce}`);
      // MpoolGetNonce: one past the run of included and pooled nonces that starts at the state nonce.
      let run = stateNonce;
      while (present.has(run)) run++;
      if (next !== run) gaps.push(`${sender}: MpoolGetNonce ${next}, pooled run ends at ${run}`);
      if (checkUnacknowledged && !this.#uncertain.has(sender)) {
        const acked = this.#ackedNonces.get(sender) ?? new Set<number>();
        for (let nonce = 0; nonce <= top; nonce++) {
          if (!acked.has(nonce)) unacknowledged.push(`${sender}#${nonce}`);
        }
      }
    }
    return { gaps, unacknowledged };
  }
}
