/**
 * ChainGetPath, ChainReadObj, ChainHasObj, ChainPutObj, ChainStatObj and ChainGetEvents over HTTP,
 * served by a real RPC server over the chain fixture (SQLite chain store, executed tipsets, forks).
 */
import { headChangePath, headChangeSteps } from '../../src/chain/index.js';
import { buildAmt } from '../../src/ipld/index.js';
import {
  cidOfCbor,
  cidToLotusJson,
  EVENT_AMT_BIT_WIDTH,
  encodeCbor,
  eventStruct,
  type TipSet,
  tipSetKeyToLotusJson,
  tipSetToLotusJson,
} from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { call } from './harness.js';

let c: ChainServer;
let admin: Record<string, string>;

beforeAll(async () => {
  c = await startChainServer();
  admin = { authorization: `Bearer ${await c.tokens.create(['read', 'write', 'sign', 'admin'])}` };
});
afterAll(() => c.close());

const key = (tipSet: TipSet) => tipSetKeyToLotusJson(tipSet.key);

describe('ChainGetPath', () => {
  test("reverts down to the common ancestor, newest first, then applies up to `to`, as Lotus's ReorgOps", async () => {
    const genesis = c.t.chain.genesis;
    const a1 = await c.t.mine();
    const a2 = await c.t.mine();
    const b1 = await c.t.mine([{}], { parent: genesis, salt: 'fork' });
    expect(c.t.chain.head().equals(a2)).toBe(true);

    const path = await call(c.url(), 'Filecoin.ChainGetPath', [key(a2), key(b1)]);
    expect(path.result).toEqual(
      JSON.parse(
        JSON.stringify([
          { Type: 'revert', Val: tipSetToLotusJson(a2) },
          { Type: 'revert', Val: tipSetToLotusJson(a1) },
          { Type: 'apply', Val: tipSetToLotusJson(b1) },
        ]),
      ),
    );
    const back = (await call(c.url(0), 'Filecoin.ChainGetPath', [key(b1), null])).result as { Type: string }[];
    expect(back.map((change) => change.Type)).toEqual(['revert', 'apply', 'apply']);
    expect((await call(c.url(), 'Filecoin.ChainGetPath', [key(a2), []])).result).toEqual([]);
  });

  test('a longer path arrives whole; the walk under it yields once per tipset, so the handler can hand the event loop back', async () => {
    const from = c.t.chain.head();
    for (let i = 0; i < 20; i++) await c.t.mine();
    const to = c.t.chain.head();
    const path = (await call(c.url(), 'Filecoin.ChainGetPath', [key(from), key(to)])).result as {
      Type: string;
      Val: { Height: number };
    }[];
    expect(path).toHaveLength(20);
    expect(path.every((change) => change.Type === 'apply')).toBe(true);
    expect(path.map((change) => change.Val.Height)).toEqual([...Array(20)].map((_, i) => Number(from.height) + 1 + i));

    const walk = headChangeSteps(to, from, (k) => c.t.chain.loadTipSet(k));
    let yields = 0;
    for (let step = walk.next(); ; step = walk.next()) {
      if (step.done) {
        expect(step.value).toEqual(headChangePath(to, from, (k) => c.t.chain.loadTipSet(k)));
        break;
      }
      yields++;
    }
    expect(yields).toBe(20);
  }, 60_000);

  test('an unknown tipset or a missing parameter is an error naming it', async () => {
    const unknown = [cidToLotusJson(cidOfCbor(encodeCbor('no such block')))];
    expect((await call(c.url(), 'Filecoin.ChainGetPath', [unknown, null])).error?.code).toBe(1);
    expect((await call(c.url(), 'Filecoin.ChainGetPath', [null])).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('to'),
    });
  });
});

describe('ChainReadObj, ChainHasObj, ChainPutObj', () => {
  test('read a block the chain holds; ask about one it lacks', async () => {
    const genesis = c.t.chain.genesis.cids[0]!;
    const bytes = c.t.chain.blockstore.get(genesis)!;
    expect((await call(c.url(), 'Filecoin.ChainReadObj', [cidToLotusJson(genesis)])).result).toBe(toBase64(bytes));
    expect((await call(c.url(), 'Filecoin.ChainHasObj', [cidToLotusJson(genesis)])).result).toBe(true);

    const absent = cidOfCbor(encodeCbor({ absent: true }));
    expect((await call(c.url(), 'Filecoin.ChainHasObj', [cidToLotusJson(absent)])).result).toBe(false);
    expect((await call(c.url(), 'Filecoin.ChainReadObj', [cidToLotusJson(absent)])).error).toEqual({
      code: 1,
      message: `object ${absent} not found in the blockstore`,
    });
    expect((await call(c.url(), 'Filecoin.ChainReadObj', ['bafy…'])).error?.code).toBe(-32602);
  });

  test('ChainPutObj (admin) stores a block whose bytes hash to its CID, and refuses one whose do not', async () => {
    const bytes = encodeCbor({ put: 'by a test' });
    const cid = cidOfCbor(bytes);
    const block = { Cid: cidToLotusJson(cid), RawData: toBase64(bytes) };
    expect((await call(c.url(), 'Filecoin.ChainPutObj', [block])).error).toEqual({
      code: 1,
      message: "missing permission to invoke 'ChainPutObj' (need 'admin')",
    });
    expect(await call(c.url(), 'Filecoin.ChainPutObj', [block], admin)).toMatchObject({ result: null });
    expect((await call(c.url(), 'Filecoin.ChainHasObj', [cidToLotusJson(cid)])).result).toBe(true);
    expect((await call(c.url(), 'Filecoin.ChainReadObj', [cidToLotusJson(cid)])).result).toBe(toBase64(bytes));

    const forged = { Cid: cidToLotusJson(cidOfCbor(encodeCbor('other'))), RawData: toBase64(bytes) };
    expect((await call(c.url(), 'Filecoin.ChainPutObj', [forged], admin)).error).toEqual({
      code: 1,
      message: expect.stringContaining('its bytes do not hash to its CID'),
    });
    expect((await call(c.url(), 'Filecoin.ChainHasObj', [forged.Cid])).result).toBe(false);
    expect((await call(c.url(), 'Filecoin.ChainPutObj', [{ RawData: toBase64(bytes) }], admin)).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('block.Cid'),
    });
  });
});

describe('ChainStatObj', () => {
  test('counts the blocks under a root and their bytes, leaving out what is under the base', async () => {
    const store = c.t.chain.blockstore;
    const put = (value: unknown) => {
      const bytes = encodeCbor(value);
      const cid = cidOfCbor(bytes);
      store.put(cid, bytes);
      return { cid, size: bytes.length };
    };
    const leafA = put('leaf a');
    const leafB = put(['leaf b', 2]);
    const middle = put({ a: leafA.cid });
    const root = put([middle.cid, leafB.cid, leafA.cid]);
    const stat = async (base: unknown) =>
      (await call(c.url(), 'Filecoin.ChainStatObj', [cidToLotusJson(root.cid), base])).result;
    expect(await stat(null)).toEqual({ Size: root.size + middle.size + leafA.size + leafB.size, Links: 4 });
    expect(await stat(cidToLotusJson(middle.cid))).toEqual({ Size: root.size + leafB.size, Links: 2 });
  });

  test("walks a whole state tree, the actors' identity code CIDs included", async () => {
    const stateRoot = c.t.chain.head().parentStateRoot;
    const stat = (await call(c.url(), 'Filecoin.ChainStatObj', [cidToLotusJson(stateRoot), null])).result as {
      Size: number;
      Links: number;
    };
    expect(stat.Links).toBeGreaterThan(10);
    expect(stat.Size).toBeGreaterThan(stat.Links);
  });

  test('a graph with a missing block is an error naming the block', async () => {
    const missing = cidOfCbor(encodeCbor('never stored'));
    const bytes = encodeCbor([missing]);
    const root = cidOfCbor(bytes);
    c.t.chain.blockstore.put(root, bytes);
    expect((await call(c.url(), 'Filecoin.ChainStatObj', [cidToLotusJson(root), null])).error).toEqual({
      code: 1,
      message: `object ${missing} not found in the blockstore`,
    });
  });
});

describe('ChainGetEvents', () => {
  test("decodes an events AMT (FIP-0049 StampedEvents) as Lotus's []types.Event", async () => {
    const events = [
      {
        emitter: 1001n,
        entries: [
          { flags: 3n, key: 't1', codec: 0x55n, value: new Uint8Array([1, 2, 3]) },
          { flags: 1n, key: 'd', codec: 0x55n, value: new Uint8Array([4]) },
        ],
      },
      { emitter: 1002n, entries: [] },
    ];
    const root = buildAmt(
      c.t.chain.blockstore,
      events.map((event) => eventStruct.toCborNode(event)),
      { bitWidth: EVENT_AMT_BIT_WIDTH },
    );
    const answer = await call(c.url(), 'Filecoin.ChainGetEvents', [cidToLotusJson(root)]);
    expect(answer.result).toEqual([
      {
        Emitter: 1001,
        Entries: [
          { Flags: 3, Key: 't1', Codec: 85, Value: 'AQID' },
          { Flags: 1, Key: 'd', Codec: 85, Value: 'BA==' },
        ],
      },
      // cbor-gen decodes an empty array into a nil slice: JSON null.
      { Emitter: 1002, Entries: null },
    ]);
  });

  test('a root the node does not hold is an error, as in Lotus (the node’s own receipts have no EventsRoot yet)', async () => {
    const unknown = cidOfCbor(encodeCbor('no events here'));
    expect((await call(c.url(), 'Filecoin.ChainGetEvents', [cidToLotusJson(unknown)])).error).toEqual({
      code: 1,
      message: expect.stringContaining(unknown.toString()),
    });
    expect((await call(c.url(0), 'Filecoin.ChainGetEvents', [cidToLotusJson(unknown)])).error?.code).toBe(-32601);
  });
});

describe('ChainTipSetWeight', () => {
  test("a tipset's weight as a decimal string: the head's by default, above its parent's", async () => {
    const head = await c.t.mine();
    const weight = (await call(c.url(), 'Filecoin.ChainTipSetWeight', [key(head)])).result;
    expect(weight).toBe(c.t.chain.weightOf(head).toString());
    expect(BigInt(weight as string)).toBeGreaterThan(head.parentWeight);
    expect((await call(c.url(0), 'Filecoin.ChainTipSetWeight', [null])).result).toBe(weight);
    expect((await call(c.url(), 'Filecoin.ChainTipSetWeight', [key(c.t.chain.genesis)])).result).toBe(
      c.t.chain.weightOf(c.t.chain.genesis).toString(),
    );
  });

  test('an unknown tipset is an error; a malformed key is an invalid parameter', async () => {
    const unknown = [cidToLotusJson(cidOfCbor(encodeCbor('no such block')))];
    expect((await call(c.url(), 'Filecoin.ChainTipSetWeight', [unknown])).error?.code).toBe(1);
    expect((await call(c.url(), 'Filecoin.ChainTipSetWeight', ['head'])).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining('tsk'),
    });
  });
});
