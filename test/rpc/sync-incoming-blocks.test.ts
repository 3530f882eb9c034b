/**
 * SyncIncomingBlocks below the network: a node of the sync fixture (its own chain store, validator,
 * block intake and libp2p host on 127.0.0.1) behind a real RPC server. The header of every block
 * offered to the block intake as a new head (gossiped, submitted, mined) comes out on the channel,
 * in Lotus JSON, before it is validated; the old tipsets a catch-up sync feeds it do not, as in
 * Lotus (filecoin-project/lotus chain/sync.go, InformNewHead). A cancel unsubscribes.
 */
import { pino } from 'pino';
import {
  generateJwtSecret,
  type RpcContext,
  RpcServer,
  startingNodeInfo,
  TokenAuthority,
} from '../../src/rpc/index.js';
import { WebSocketRpcClient } from '../../src/rpc/ws-client.js';
import { blockHeaderToLotusJson, stringifyJsonLossless } from '../../src/types/index.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';
import { PARAMS } from '../helpers/genesis.js';
import { type MiningChain, miningChain } from '../helpers/mining-chain.js';
import { mine, type SyncNode, SyncNodes } from '../helpers/sync-nodes.js';

const TIMEOUT_MS = 10 * 60_000;

let fixture: MiningChain | undefined;
let nodes: SyncNodes | undefined;
let node: SyncNode;
let server: RpcServer | undefined;

beforeAll(async () => {
  fixture = await miningChain();
  nodes = new SyncNodes(fixture);
  node = await nodes.node('incoming');
  const context: RpcContext = {
    node: startingNodeInfo('test', Number(PARAMS.blockDelaySecs)),
    wallet: new Wallet(new Keystore(`${fixture.ctx.sectorDirectory}/keystore`)),
    tokens: new TokenAuthority(generateJwtSecret()),
    chain: { store: node.chain, states: node.states, params: PARAMS, networkName: 'ledger-test' },
    net: { network: node.network, sync: node.sync },
  };
  server = await RpcServer.start({ context, logger: pino({ level: 'silent' }), host: '127.0.0.1', port: 0 });
}, TIMEOUT_MS);

afterAll(async () => {
  await server?.close();
  await nodes?.close();
  await fixture?.remove();
});

/** The next value of the channel, within `ms`. */
async function next(values: AsyncIterator<unknown>, ms = 60_000): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no value within ${ms} ms`)), ms);
  });
  try {
    const { value, done } = await Promise.race([values.next(), timeout]);
    if (done === true) throw new Error('the channel closed');
    return value;
  } finally {
    clearTimeout(timer);
  }
}

const lotusJson = (value: unknown) => JSON.parse(stringifyJsonLossless(value));

test(
  'gossiped and mined blocks come out as Lotus JSON headers; a catch-up sync’s tipsets do not; a cancel ends it',
  async () => {
    const client = await WebSocketRpcClient.connect(`http://127.0.0.1:${server!.port}/rpc/v1`);
    const channel = await client.subscribe('Filecoin.SyncIncomingBlocks');
    const values = channel[Symbol.asyncIterator]();

    const first = await mine(fixture!, node, node.chain.head(), []);
    await node.sync.submitBlock(first.block, 'gossip');
    expect(await next(values)).toEqual(lotusJson(blockHeaderToLotusJson(first.block.header)));

    // Fed by a catch-up sync: not announced. Then the node's own block: announced.
    const synced = await mine(fixture!, node, node.chain.head(), []);
    await node.sync.intake.submitTipSet([synced.block], 'sync');
    const mined = await mine(fixture!, node, node.chain.head(), []);
    await node.sync.intake.submit(mined.block, 'mined');
    expect(await next(values)).toEqual(lotusJson(blockHeaderToLotusJson(mined.block.header)));

    expect(server!.webSockets.channels).toBe(1);
    channel.cancel();
    expect(await values.next()).toEqual({ done: true, value: undefined });
    expect(server!.webSockets.channels).toBe(0);
    await client.close();
  },
  TIMEOUT_MS,
);
