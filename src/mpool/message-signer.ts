/**
 * MpoolPushMessage (filecoin-project/lotus `node/impl/full/mpool.go` and `chain/messagesigner`):
 * under a per-sender lock, refuses a set nonce, fills the gas, checks the balance, takes the next
 * nonce (the pool's, or the one recorded after the last push if higher), signs with the wallet,
 * pushes, and records the nonce and the message under its UUID so a retried call returns the same
 * message instead of sending again. The records are written in the transaction that stores the
 * message: after a crash either the message is stored and the nonce advanced, or neither, and a
 * push that fails to commit leaves the nonce free for the retry. The wallet comes in as a function:
 * `mpool` sits below `wallet` in the module order.
 */
import type { MpoolStore } from '../db/mpool-store.js';
import {
  type Address,
  AddressProtocol,
  decodeSignedMessage,
  encodeSignedMessage,
  type Message,
  type SignedMessage,
} from '../types/index.js';
import { MpoolError, MpoolErrorCode } from './errors.js';
import { type GasEstimator, type MessageSendSpec, requireUnsetNonce } from './gas-estimate.js';
import type { MessagePool } from './message-pool.js';

/** Signs a message with the wallet key of `address` (its CID bytes). */
export type MessageSignFunction = (address: Address, message: Message) => Promise<SignedMessage>;

export interface PushMessageSpec extends MessageSendSpec {
  /** Idempotency key; undefined or the zero UUID means none. */
  readonly msgUuid?: string | undefined;
}

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

export class MessageSigner {
  readonly #pool: MessagePool;
  readonly #gas: GasEstimator;
  readonly #store: MpoolStore | undefined;
  readonly #sign: MessageSignFunction;
  readonly #locks = new Map<string, Promise<unknown>>();

  constructor(options: {
    pool: MessagePool;
    gas: GasEstimator;
    store?: MpoolStore | undefined;
    sign: MessageSignFunction;
  }) {
    this.#pool = options.pool;
    this.#gas = options.gas;
    this.#store = options.store;
    this.#sign = options.sign;
  }

  async pushMessage(input: Message, spec: PushMessageSpec | null): Promise<SignedMessage> {
    const uuid = spec?.msgUuid !== undefined && spec.msgUuid !== ZERO_UUID ? spec.msgUuid : undefined;
    const alreadySent = (): SignedMessage | undefined => {
      const sent = uuid === undefined ? undefined : this.#store?.sentMessage(uuid);
      return sent === undefined ? undefined : decodeSignedMessage(sent);
    };
    const earlier = alreadySent();
    if (earlier !== undefined) return earlier;
    let from: Address;
    try {
      from = this.#pool.resolveToKey(input.from);
    } catch (error) {
      throw new MpoolError(MpoolErrorCode.PushMessage, `getting key address: ${(error as Error).message}`);
    }
    return this.#withLock(from.toString(), async () => {
      // A concurrent retry with the same UUID may have sent it while this call waited for the lock.
      const concurrent = alreadySent();
      if (concurrent !== undefined) return concurrent;
      requireUnsetNonce(input);
      let message: Message;
      try {
        message = await this.#gas.estimateMessageGas(input, spec ?? undefined);
      } catch (error) {
        throw new MpoolError(MpoolErrorCode.PushMessage, `GasEstimateMessageGas error: ${(error as Error).message}`, {
          cause: error,
        });
      }
      if (message.gasPremium > message.gasFeeCap) {
        throw new MpoolError(
          MpoolErrorCode.PushMessage,
          `After estimation, GasPremium is greater than GasFeeCap (premium ${message.gasPremium}, fee cap ${message.gasFeeCap})`,
        );
      }
      message = { ...message, from };
      const balance = this.#pool.actorAfterHead(from)?.balance ?? 0n;
      const needed = message.value + message.gasFeeCap * message.gasLimit;
      if (balance < needed) {
        throw new MpoolError(MpoolErrorCode.NotEnoughFunds, `mpool push: not enough funds: ${balance} < ${needed}`);
      }
      const poolNonce = this.#pool.getNonce(from);
      const recorded = this.#store?.nextNonce(from.bytes);
      const nonce = recorded !== undefined && recorded > poolNonce ? recorded : poolNonce;
      message = { ...message, nonce };
      let signed: SignedMessage;
      try {
        signed = await this.#sign(from, message);
      } catch (error) {
        throw new MpoolError(
          MpoolErrorCode.PushMessage,
          `failed to sign message: ${(error as Error).message}, addr=${from}`,
          { cause: error },
        );
      }
      const store = this.#store;
      const records =
        store === undefined
          ? undefined
          : () => {
              store.saveNextNonce(from.bytes, nonce + 1n);
              if (uuid !== undefined) store.saveSentMessage(uuid, encodeSignedMessage(signed));
            };
      try {
        await this.#pool.push(signed, records);
      } catch (error) {
        if (error instanceof MpoolError) throw error.wrap('mpool push: failed to push message');
        throw error;
      }
      return signed;
    });
  }

  async #withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#locks.get(key) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.#locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.#locks.get(key) === tail) this.#locks.delete(key);
    }
  }
}

/** Lotus's API-layer check of MpoolPush/MpoolPushMessage: an f4 recipient must be an Eth (f410f, 20-byte) address. */
export function checkDelegatedRecipient(message: Message): void {
  const to = message.to;
  if (to.protocol !== AddressProtocol.Delegated) return;
  const payload = to.payload;
  // Delegated payload: namespace (uvarint; 10 is one byte) then the sub-address.
  if (payload[0] !== 10 || payload.length !== 21) {
    throw new MpoolError(
      MpoolErrorCode.InvalidMessage,
      `message recipient ${to} is a delegated address but not a valid Eth Address`,
    );
  }
}
