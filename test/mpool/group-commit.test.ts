/**
 * Local pushes are durable before they answer, and an error answer changes nothing: the pool's
 * group commit (message row and MpoolPushMessage's nonce record in one transaction, answered after
 * COMMIT, published after it) and its undo when the commit fails. A second SQLite connection reads
 * what is on disk at the moment an answer arrives; a trigger on the real table makes the store's
 * insert fail as a full disk would, and dropping it brings the disk back.
 */
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import Database from 'better-sqlite3';
import { type MessagePool, type MessageSigner, MpoolError, MpoolErrorCode } from '../../src/mpool/index.js';
import { type Address, type Message, type SignedMessage, signedMessageCid } from '../../src/types/index.js';
import type { TestChain } from '../helpers/test-chain.js';
import { cidOf, createTestChain, messageSigner, openPool, transfer, unsetMessage } from './harness.js';

let t: TestChain;
let pool: MessagePool;
let signer: MessageSigner;
/** Another connection to the node's database file: sees only what was committed. */
let disk: Database.Database;
let published: string[];

beforeEach(async () => {
  t = createTestChain();
  pool = await openPool(t);
  signer = messageSigner(t, pool);

  disk = new Database(t.databasePath);
  published = [];
  pool.onPublish((signed) => published.push(cidOf(signed)));
});

afterEach(async () => {
  disk.close();
  await pool.close();
  t.close();
  t.remove();
});

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** CIDs (hex of the bytes) of the local messages committed to the database file. */
function storedCids(): string[] {
  return disk
    .prepare<[], Buffer>('SELECT cid FROM mpool_local_messages')
    .pluck()
    .all()
    .map((bytes) => hex(bytes));
}

function storedNextNonce(address: Address): bigint | undefined {
  return disk
    .prepare<[Buffer], bigint>('SELECT next_nonce FROM mpool_next_nonces WHERE address = ?')
    .pluck()
    .safeIntegers()
    .get(Buffer.from(address.bytes));
}

/** The hex of a secp256k1 message's chain CID, as stored. */
const cidHex = (signed: SignedMessage): string => hex(signedMessageCid(signed).bytes);

/** Makes every insert of a local message fail in SQLite itself, as a full disk does. */
function failDisk(): void {
  disk.exec(
    "CREATE TRIGGER fail_local_insert BEFORE INSERT ON mpool_local_messages BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
  );
}

function restoreDisk(): void {
  disk.exec('DROP TRIGGER fail_local_insert');
}

const unsigned = (fields: Partial<Message> = {}): Message => unsetMessage(t, fields);

describe('an answered push is on disk', () => {
  test('MpoolPush resolves only after its row is committed, and publishes only after that', async () => {
    const signed = Array.from({ length: 20 }, (_, i) => transfer(t.senders[i % 5]!, BigInt(Math.floor(i / 5))));
    const seenAtPublish: boolean[] = [];
    pool.onPublish((message) => seenAtPublish.push(storedCids().includes(cidHex(message))));
    // Concurrent pushes join one batch; each answer must find every row of its batch on disk.
    const onDiskAtAnswer = await Promise.all(
      signed.map((message) => pool.push(message).then(() => storedCids().includes(cidHex(message)))),
    );
    expect(onDiskAtAnswer).toEqual(signed.map(() => true));
    expect(seenAtPublish).toEqual(signed.map(() => true));
    expect(published.sort()).toEqual(signed.map(cidOf).sort());
  });

  test('MpoolPushMessage answers with the message row and the next-nonce record committed together', async () => {
    const from = t.senders[0]!.address;
    for (let nonce = 0n; nonce < 3n; nonce++) {
      const sent = await signer.pushMessage(unsigned(), null);
      // Read at the moment of the answer, from the file.
      expect(sent.message.nonce).toBe(nonce);
      expect(storedCids()).toContain(cidHex(sent));
      expect(storedNextNonce(from)).toBe(nonce + 1n);
    }
  });
});

describe('a push whose commit fails changes nothing', () => {
  test('MpoolPush: every caller of the failed batch gets the error, the pool and the disk are as before', async () => {
    const kept = transfer(t.senders[0]!, 0n, { gasPremium: 100_000n });
    await pool.push(kept);
    const before = { pending: pool.pending().map(cidOf), size: pool.size, stored: storedCids() };
    published.length = 0;

    failDisk();
    const batch = [
      transfer(t.senders[0]!, 1n),
      transfer(t.senders[1]!, 0n),
      transfer(t.senders[1]!, 1n),
      // Replaces `kept` by fee: the replacement is undone and `kept` comes back.
      transfer(t.senders[0]!, 0n, { gasPremium: 200_000n }),
    ];
    const answers = await Promise.allSettled(batch.map((message) => pool.push(message)));
    for (const answer of answers) {
      expect(answer.status).toBe('rejected');
      const error = (answer as PromiseRejectedResult).reason as MpoolError;
      expect(error).toBeInstanceOf(MpoolError);
      expect(error.code).toBe(MpoolErrorCode.Persist);
      expect(error.message).toMatch(/^error persisting local message: .*database or disk is full/);
    }
    expect(pool.pending().map(cidOf)).toEqual(before.pending);
    expect(pool.size).toBe(before.size);
    expect(pool.getNonce(t.senders[0]!.address)).toBe(1n);
    expect(pool.getNonce(t.senders[1]!.address)).toBe(0n);
    expect(storedCids()).toEqual(before.stored);
    expect(published).toEqual([]);
    expect(pool.republish().map(cidOf)).toEqual([cidOf(kept)]);

    // The disk is back: the same messages go through.
    restoreDisk();
    published.length = 0;
    await Promise.all(batch.map((message) => pool.push(message)));
    expect(pool.size).toBe(4);
    expect(storedCids().sort()).toEqual(batch.map(cidHex).sort());
  });

  test('MpoolPushMessage on a failing disk: error, nothing pooled, nonce and UUID not consumed; the retry succeeds', async () => {
    const from = t.senders[0]!.address;
    const spec = { maxFee: 0n, msgUuid: '2c5e8a3b-1f4d-4e6a-9b7c-0d1e2f3a4b5c' };
    await signer.pushMessage(unsigned(), null);
    expect(storedNextNonce(from)).toBe(1n);

    failDisk();
    const error = (await signer.pushMessage(unsigned(), spec).catch((e: unknown) => e)) as MpoolError;
    expect(error).toBeInstanceOf(MpoolError);
    expect(error.code).toBe(MpoolErrorCode.Persist);
    expect(error.message).toMatch(/^mpool push: failed to push message: error persisting local message: /);
    expect(pool.size).toBe(1);
    expect(pool.getNonce(from)).toBe(1n);
    expect(storedNextNonce(from)).toBe(1n);
    expect(t.db.mpool.sentMessage(spec.msgUuid)).toBeUndefined();
    expect(published).toHaveLength(1);

    restoreDisk();
    const retried = await signer.pushMessage(unsigned(), spec);
    expect(retried.message.nonce).toBe(1n);
    expect(storedCids()).toContain(cidHex(retried));
    expect(storedNextNonce(from)).toBe(2n);
    expect(cidOf(await signer.pushMessage(unsigned(), spec))).toBe(cidOf(retried));
    expect(pool.size).toBe(2);
  });
});

describe('nothing leaves the node before its commit', () => {
  /** Pushes and returns once the message is in the pool, before its batch commits (next turn). */
  async function admittedNotCommitted(signed: SignedMessage): Promise<{ answer: Promise<unknown> }> {
    const answer = pool.push(signed).catch((error: unknown) => error);
    // The signature check runs on the next turn; this callback runs right after it, before the commit.
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool.pending().map(cidOf)).toEqual([cidOf(signed)]);
    // Wrapped: an async function returning the promise itself would wait for it.
    return { answer };
  }

  test('republishing commits first: a message whose commit fails is not published', async () => {
    failDisk();
    const { answer } = await admittedNotCommitted(transfer(t.senders[0]!, 0n));
    expect(pool.republish()).toEqual([]);
    expect(((await answer) as MpoolError).code).toBe(MpoolErrorCode.Persist);
    expect(published).toEqual([]);
    expect(pool.size).toBe(0);
  });

  test('block selection commits first: a message whose commit fails is not mined', async () => {
    failDisk();
    const { answer } = await admittedNotCommitted(transfer(t.senders[0]!, 0n));
    expect(await pool.select(t.chain.head(), 0.9)).toBeNull();
    expect(((await answer) as MpoolError).code).toBe(MpoolErrorCode.Persist);
  });
});

describe('untrusted pushes', () => {
  test('MpoolPushUntrusted refuses any nonce gap, with Lotus’s message; MpoolPush still allows one', async () => {
    const sender = t.senders[0]!;
    for (const nonce of [1n, 10n]) {
      const error = (await pool.pushUntrusted(transfer(sender, nonce)).catch((e: unknown) => e)) as MpoolError;
      expect(error).toBeInstanceOf(MpoolError);
      expect(error.code).toBe(MpoolErrorCode.NonceGap);
      expect(error.message).toBe(
        `message nonce has too big a gap from expected nonce (Nonce: ${nonce}, nextNonce: 0): unfulfilled nonce gap`,
      );
    }
    expect(pool.size).toBe(0);
    expect(storedCids()).toEqual([]);
    await pool.pushUntrusted(transfer(sender, 0n));
    await pool.pushUntrusted(transfer(sender, 1n));
    expect(pool.getNonce(sender.address)).toBe(2n);
    await pool.push(transfer(t.senders[1]!, 3n));
    expect(pool.size).toBe(3);
  });
});
