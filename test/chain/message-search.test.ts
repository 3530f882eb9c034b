import { LOOKBACK_NO_LIMIT, MessageSearch } from '../../src/chain/message-search.js';
import { encodeSignedMessage, type Message, signedMessageCid } from '../../src/types/index.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { TestChain } from '../helpers/test-chain.js';

const { alice, bob } = keys;

let t: TestChain;
let search: MessageSearch;
beforeEach(() => {
  t = TestChain.create();
  search = new MessageSearch({ chain: t.chain });
});
afterEach(() => t.close());

function transfer(fields: Partial<Message> = {}) {
  return signSecp(alice, message({ from: alice.address, to: bob.address, value: FIL, ...fields }));
}

describe('MessageSearch.search', () => {
  test('finds the execution tipset (the child of the inclusion) and the receipt', async () => {
    const signed = transfer();
    const cid = signedMessageCid(signed);
    const included = await t.mine([{ secp: [signed] }]);
    // Included in the head: not executed on this chain yet.
    expect(await search.search(included, cid, LOOKBACK_NO_LIMIT, false)).toBeUndefined();
    const execution = await t.mine();
    await t.mine();
    const head = t.chain.head();
    const lookup = await search.search(head, cid, LOOKBACK_NO_LIMIT, false);
    expect(lookup?.message.toString()).toBe(cid.toString());
    expect(lookup?.height).toBe(execution.height);
    expect(lookup?.tipSet.key.equals(execution.key)).toBe(true);
    expect(lookup?.receipt.exitCode).toBe(0n);
    expect(lookup?.receipt.gasUsed).toBeGreaterThan(0n);
    // The receipt is the one recorded on chain in the execution tipset's ParentMessageReceipts.
    expect(t.chain.readReceipts(execution.parentMessageReceipts)[0]).toEqual(lookup?.receipt);
    // From the execution tipset itself (the head check) and from further up.
    expect((await search.search(execution, cid, 0n, false))?.height).toBe(execution.height);
  });

  test('the lookback limit bounds how far back the execution tipset may be', async () => {
    const signed = transfer();
    const cid = signedMessageCid(signed);
    await t.mine([{ secp: [signed] }]); // height 1, executed at 2
    for (let i = 0; i < 4; i++) await t.mine(); // head 5
    const head = t.chain.head();
    expect(head.height).toBe(5n);
    expect(await search.search(head, cid, 3n, false)).toBeUndefined(); // looks at 5, 4, 3
    expect((await search.search(head, cid, 4n, false))?.height).toBe(2n);
    expect((await search.search(head, cid, LOOKBACK_NO_LIMIT, false))?.height).toBe(2n);
  });

  test('a message known but not on chain is null; an unknown CID is an error like Lotus', async () => {
    const pending = transfer();
    const cid = signedMessageCid(pending);
    const withPool = new MessageSearch({
      chain: t.chain,
      pendingMessage: (asked) => (asked.equals(cid) ? pending.message : undefined),
    });
    await t.mine();
    await t.mine();
    expect(await withPool.search(t.chain.head(), cid, LOOKBACK_NO_LIMIT, true)).toBeUndefined();
    await expect(search.search(t.chain.head(), cid, LOOKBACK_NO_LIMIT, true)).rejects.toThrow(
      `failed to load message: message ${cid} not found`,
    );
  });

  test('a replacement (same call, other gas) is found only with allowReplaced', async () => {
    const original = transfer({ gasPremium: 100n, gasFeeCap: 100n });
    const replacement = transfer({ gasPremium: 200_000n, gasFeeCap: 300_000_000n });
    const originalCid = signedMessageCid(original);
    // The node stored the original (as Lotus's pool does) but the chain took the replacement.
    t.chain.blockstore.put(originalCid, encodeSignedMessage(original));
    await t.mine([{ secp: [replacement] }]);
    await t.mine();
    const head = t.chain.head();
    const lookup = await search.search(head, originalCid, LOOKBACK_NO_LIMIT, true);
    expect(lookup?.message.toString()).toBe(signedMessageCid(replacement).toString());
    expect(lookup?.height).toBe(2n);
    await expect(search.search(head, originalCid, LOOKBACK_NO_LIMIT, false)).rejects.toThrow(
      'found message with equal nonce as the one we are looking for',
    );
  });

  test('a pending message asked about once is remembered, so its replacement is found after the pool forgot it', async () => {
    const original = transfer({ gasPremium: 100n, gasFeeCap: 100n });
    const replacement = transfer({ gasPremium: 200_000n, gasFeeCap: 300_000_000n });
    const originalCid = signedMessageCid(original);
    let pooled: Message | undefined = original.message;
    const withPool = new MessageSearch({
      chain: t.chain,
      pendingMessage: (asked) => (asked.equals(originalCid) ? pooled : undefined),
    });
    expect(await withPool.search(t.chain.head(), originalCid, LOOKBACK_NO_LIMIT, true)).toBeUndefined();
    pooled = undefined; // replaced in the pool
    await t.mine([{ secp: [replacement] }]);
    await t.mine();
    const lookup = await withPool.search(t.chain.head(), originalCid, LOOKBACK_NO_LIMIT, true);
    expect(lookup?.message.toString()).toBe(signedMessageCid(replacement).toString());
  });

  test('another message at the same sender and nonce is an error, not a match', async () => {
    const asked = transfer({ value: 2n * FIL });
    const onChain = transfer({ value: 3n * FIL });
    t.chain.blockstore.put(signedMessageCid(asked), encodeSignedMessage(asked));
    await t.mine([{ secp: [onChain] }]);
    await t.mine();
    await expect(search.search(t.chain.head(), signedMessageCid(asked), LOOKBACK_NO_LIMIT, true)).rejects.toThrow(
      'NOT a valid replacement message',
    );
  });

  test('a message on a reverted fork is not found', async () => {
    const genesis = t.chain.head();
    const signed = transfer();
    const cid = signedMessageCid(signed);
    await t.mine([{ secp: [signed] }]);
    await t.mine();
    expect(await search.search(t.chain.head(), cid, LOOKBACK_NO_LIMIT, false)).toBeDefined();
    // A heavier fork without the message (two blocks per tipset) takes over.
    const fork1 = await t.mine([{}, {}], { parent: genesis, salt: 'fork' });
    await t.mine([{}, {}], { parent: fork1, salt: 'fork' });
    await t.mine([{}, {}], { salt: 'fork' });
    expect(t.chain.head().height).toBe(3n);
    expect(await search.search(t.chain.head(), cid, LOOKBACK_NO_LIMIT, false)).toBeUndefined();
  });
});

describe('MessageSearch.wait', () => {
  test('answers once the message is executed and `confidence` tipsets are on top', async () => {
    const signed = transfer();
    const cid = signedMessageCid(signed);
    let settled: unknown;
    const waiting = search.wait(cid, { confidence: 2n, limit: LOOKBACK_NO_LIMIT, allowReplaced: true });
    waiting.then((lookup) => {
      settled = lookup;
    });
    await t.mine([{ secp: [signed] }]); // 1: included
    await t.mine(); // 2: executed
    await t.mine(); // 3
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBeUndefined();
    await t.mine(); // 4 = 2 + confidence
    const lookup = await waiting;
    expect(lookup.height).toBe(2n);
    expect(lookup.message.toString()).toBe(cid.toString());
    expect(lookup.receipt.exitCode).toBe(0n);
  });

  test('an already executed message with enough confidence answers at once', async () => {
    const signed = transfer();
    await t.mine([{ secp: [signed] }]);
    await t.mine();
    await t.mine();
    const lookup = await search.wait(signedMessageCid(signed), {
      confidence: 1n,
      limit: LOOKBACK_NO_LIMIT,
      allowReplaced: false,
    });
    expect(lookup.height).toBe(2n);
  });

  test('a reorg that drops the execution tipset makes it wait for the new chain', async () => {
    const genesis = t.chain.head();
    const signed = transfer();
    const cid = signedMessageCid(signed);
    const waiting = search.wait(cid, { confidence: 2n, limit: LOOKBACK_NO_LIMIT, allowReplaced: true });
    await t.mine([{ secp: [signed] }]); // 1
    await t.mine(); // 2: executed (candidate)
    // A heavier fork where the message is included later, at 2, and executed at 3.
    const f1 = await t.mine([{}, {}], { parent: genesis, salt: 'fork' });
    const f2 = await t.mine([{ secp: [signed] }, {}], { parent: f1, salt: 'fork' });
    const f3 = await t.mine([{}, {}], { parent: f2, salt: 'fork' });
    expect(t.chain.head().key.equals(f3.key)).toBe(true);
    await t.mine([{}, {}], { salt: 'fork' }); // 4
    await t.mine([{}, {}], { salt: 'fork' }); // 5 = 3 + confidence
    const lookup = await waiting;
    expect(lookup.tipSet.key.equals(f3.key)).toBe(true);
    expect(lookup.height).toBe(3n);
  });

  test('many waiters on one chain all resolve from the same head changes', async () => {
    const messages = Array.from({ length: 60 }, (_, i) => transfer({ nonce: BigInt(i), value: 1n }));
    const waits = messages.map((signed) =>
      search.wait(signedMessageCid(signed), { confidence: 1n, limit: LOOKBACK_NO_LIMIT, allowReplaced: true }),
    );
    await t.mine([{ secp: messages }]);
    await t.mine();
    await t.mine();
    const lookups = await Promise.all(waits);
    expect(lookups.map((l) => l.height)).toEqual(messages.map(() => 2n));
    expect(lookups.map((l) => l.message.toString())).toEqual(messages.map((m) => signedMessageCid(m).toString()));
    expect(lookups.every((l) => l.receipt.exitCode === 0n)).toBe(true);
  });

  test('an abort signal ends the wait with an error', async () => {
    const controller = new AbortController();
    const waiting = search.wait(signedMessageCid(transfer()), {
      confidence: 0n,
      limit: LOOKBACK_NO_LIMIT,
      allowReplaced: true,
      signal: controller.signal,
    });
    controller.abort('the node is stopping');
    await expect(waiting).rejects.toThrow('stopped waiting for message');
  });
});
