/**
 * The Ethereum hash indexer on a real chain: at start it indexes the chain below the head (a
 * node opening a repo it synced before the index existed), then every tipset the head moves onto;
 * delegated messages are found by their Ethereum hash, tipsets by their block hash.
 */
import { cidOfEthHash, EthIndexer, ethBlockHash, ethTxHashOf } from '../../src/chain/index.js';
import { signedMessageCid, type TipSet } from '../../src/types/index.js';
import { ethKey, ethTransfer, signEth } from '../helpers/eth-keys.js';
import { keys } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { TestChain } from '../helpers/test-chain.js';

const CHAIN_ID = 31415926;
const sender = ethKey('indexer');
const recipient = ethKey('recipient');

let t: TestChain;
let indexer: EthIndexer | undefined;

beforeEach(() => {
  t = TestChain.create();
});
afterEach(() => {
  indexer?.stop();
  t.close();
});

test('catches up on the chain below the head at start, then follows head changes', async () => {
  const delegated = signEth(sender, ethTransfer(sender, recipient.address, 0n), CHAIN_ID);
  const native = signSecp(keys.alice, message({ from: keys.alice.address, to: keys.bob.address }));
  const before: TipSet[] = [t.chain.head(), await t.mine([{ secp: [delegated, native] }]), await t.mine()];
  expect(t.db.eth.messageOf(ethTxHashOf(delegated, CHAIN_ID))).toBeUndefined();

  indexer = new EthIndexer({ chain: t.chain, db: t.db, chainId: CHAIN_ID });
  await indexer.start();
  for (const tipSet of before) expect(t.db.eth.tipSetOf(ethBlockHash(tipSet))).toEqual(tipSet.key);
  expect(t.db.eth.messageOf(ethTxHashOf(delegated, CHAIN_ID))).toEqual(signedMessageCid(delegated));
  // Native messages need no row: their hash is their CID's digest.
  expect(t.db.eth.messageOf(ethTxHashOf(native, CHAIN_ID))).toBeUndefined();
  expect(cidOfEthHash(ethTxHashOf(native, CHAIN_ID))).toEqual(signedMessageCid(native));

  const later = signEth(sender, ethTransfer(sender, recipient.address, 1n), CHAIN_ID);
  const next = await t.mine([{ secp: [later] }]);
  expect(t.db.eth.tipSetOf(ethBlockHash(next))).toEqual(next.key);
  expect(t.db.eth.messageOf(ethTxHashOf(later, CHAIN_ID))).toEqual(signedMessageCid(later));
});
