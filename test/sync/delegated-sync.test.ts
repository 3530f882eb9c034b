/**
 * A chain carrying a delegated (type 3, Ethereum) message syncs between real nodes: the producer
 * funds an f410 address, then mines that address's EIP-1559 transfer in a block's secp list; a
 * follower from the same genesis catches up over libp2p with full validation (signatures, winning
 * PoSt, parent state by execution) and reaches the same head, where the sender is an EthAccount and
 * the value has moved.
 */
import { actorNameOf, StateTree } from '../../src/state/index.js';
import { type SignedMessage, signedMessageCid, type TipSet } from '../../src/types/index.js';
import { ethKey, ethTransfer, signEth } from '../helpers/eth-keys.js';
import { FIL } from '../helpers/genesis.js';
import { alice, type MiningChain, miningChain, signMessage } from '../helpers/mining-chain.js';
import { extend, mine, type SyncNode, SyncNodes, until } from '../helpers/sync-nodes.js';

const SETUP_TIMEOUT_MS = 10 * 60_000;
const ETH = ethKey('sync-eth');
const RECIPIENT = ethKey('sync-eth-recipient');

let producer: MiningChain;
let nodes: SyncNodes;
let producerNode: SyncNode;
let delegated: SignedMessage;

beforeAll(async () => {
  producer = await miningChain();
  nodes = new SyncNodes(producer);
  producerNode = await nodes.node('producer');
  delegated = signEth(ETH, ethTransfer(ETH, RECIPIENT.address, 0n, { value: 2n * FIL }));
  const blocks = [
    [await signMessage(alice.address, { nonce: 0n, to: ETH.address, value: 10n * FIL })],
    [delegated],
    [],
  ];
  let base: TipSet = producerNode.chain.head();
  for (const messages of blocks) {
    const { block } = await mine(producer, producerNode, base, messages);
    base = await extend(producerNode, block);
  }
}, SETUP_TIMEOUT_MS);

afterAll(async () => {
  await nodes?.close();
  await producer?.remove();
});

test(
  'a follower syncs the block with the delegated message and reaches the same state',
  async () => {
    const target = producerNode.chain.head();
    const follower = await nodes.node('follower');
    await follower.network.connect(producerNode.network.listenAddresses()[0]!);
    await until(() => follower.chain.head().key.equals(target.key));
    await follower.sync.idle();

    expect(follower.chain.findMessageInclusion(signedMessageCid(delegated))).toBeDefined();
    const executed = await follower.states.stateOf(target);
    expect(executed.stateRoot.equals((await producerNode.states.stateOf(target)).stateRoot)).toBe(true);
    const tree = StateTree.load(follower.chain.blockstore, executed.stateRoot);
    const sender = tree.getActor(tree.lookupId(ETH.address)!)!;
    expect(actorNameOf(sender.code)).toBe('ethaccount');
    expect(sender.nonce).toBe(1n);
    expect(tree.getActor(tree.lookupId(RECIPIENT.address)!)?.balance).toBe(2n * FIL);
  },
  SETUP_TIMEOUT_MS,
);
