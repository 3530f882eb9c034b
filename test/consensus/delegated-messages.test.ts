/**
 * Block validation's message checks (Lotus `checkBlockMessages`) with delegated (type 3) messages in
 * the secp list: a block whose Ethereum transactions were signed by their f410 senders for the
 * network's chain id is accepted; a bad signature, a sender that may not send, or a network version
 * before delegated signatures is refused, naming the message. Real chain state, real signatures.
 */
import { BlockCheckError, BlockErrorCode, checkBlockMessages } from '../../src/consensus/index.js';
import { StateTree } from '../../src/state/index.js';
import type { FullBlock, SignedMessage } from '../../src/types/index.js';
import { ethKey, ethTransfer, signEth } from '../helpers/eth-keys.js';
import { accountOf, FIL, fundedTemplate, PARAMS } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { TestChain } from '../helpers/test-chain.js';

const ETH = ethKey('consensus-eth');
const RECIPIENT = ethKey('consensus-recipient');

let t: TestChain;
let tree: StateTree;

beforeAll(async () => {
  t = TestChain.create({ template: fundedTemplate([accountOf(ETH.address, 10n * FIL)]) });
  tree = StateTree.load(t.chain.blockstore, (await t.states.stateOf(t.chain.head())).stateRoot);
});
afterAll(() => t.close());

/** A block on the head carrying `secp` (its header's Messages is their TxMeta). */
async function blockWith(secp: readonly SignedMessage[]): Promise<FullBlock> {
  const tipSet = await t.tipSet(t.chain.head(), [{ secp }]);
  return { header: tipSet.blocks[0]!, blsMessages: [], secpkMessages: [...secp] };
}

async function refusal(block: FullBlock, params = PARAMS): Promise<BlockCheckError> {
  const error = await checkBlockMessages(tree, block, params).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BlockCheckError);
  expect((error as BlockCheckError).code).toBe(BlockErrorCode.BadMessages);
  return error as BlockCheckError;
}

const delegated = (nonce: bigint) => signEth(ETH, ethTransfer(ETH, RECIPIENT.address, nonce));
const secp = (nonce: bigint) =>
  signSecp(keys.alice, message({ from: keys.alice.address, to: keys.bob.address, nonce, value: 1n }));

test('a block with delegated and secp256k1 messages in its secp list is accepted', async () => {
  const block = await blockWith([secp(0n), delegated(0n), delegated(1n)]);
  await expect(checkBlockMessages(tree, block, PARAMS)).resolves.toBeUndefined();
});

test('a delegated message whose signature does not verify is refused, naming it', async () => {
  const good = delegated(0n);
  const data = Uint8Array.from(good.signature.data);
  data[10] = (data[10] as number) ^ 0xff;
  const forged = { ...good, signature: { ...good.signature, data } };
  const error = await refusal(await blockWith([secp(0n), forged]));
  expect(error.message).toMatch(/^secp message 1 \(bafy2bza[a-z2-7]+\): invalid delegated signature: /);
});

test('a delegated message with a value other than the one signed is refused', async () => {
  const good = delegated(0n);
  const changed = { ...good, message: { ...good.message, value: good.message.value + 1n } };
  expect((await refusal(await blockWith([changed]))).message).toContain('invalid delegated signature');
});

test('a delegated message from an f410 address with no actor is refused', async () => {
  const stranger = ethKey('consensus-stranger');
  const error = await refusal(await blockWith([signEth(stranger, ethTransfer(stranger, RECIPIENT.address, 0n))]));
  expect(error.message).toContain(`sender ${stranger.address} does not exist`);
});

test('before network version 18 a delegated signature is not allowed in the secp list', async () => {
  const error = await refusal(await blockWith([delegated(0n)]), { ...PARAMS, networkVersion: 17 });
  expect(error.message).toContain('signature type 3 is not allowed in a secp message list');
});
