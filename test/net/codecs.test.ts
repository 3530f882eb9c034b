/**
 * Byte-exact wire formats of hello, chain exchange and block gossip (filecoin-project/lotus
 * `node/hello`, `chain/exchange`, `chain/sub`), checked against hand-assembled CBOR and real
 * mainnet headers, messages and TxMetas.
 */
import { CID } from 'multiformats/cid';
import {
  compactMessages,
  decodeExchangeRequest,
  decodeExchangeResponse,
  decodeHelloMessage,
  decodeLatencyMessage,
  ExchangeStatus,
  encodeExchangeRequest,
  encodeExchangeResponse,
  encodeHelloMessage,
  encodeLatencyMessage,
  expandMessages,
  serveExchangeBytes,
} from '../../src/net/index.js';
import {
  blockCid,
  decodeBlockMsg,
  encodeBlockHeader,
  encodeBlockMsg,
  encodeMessage,
  encodeSignedMessage,
  messageCid,
  signedMessageCid,
  type TipSet,
} from '../../src/types/index.js';
import { concatBytes, fromHex, toHex } from '../../src/utils/bytes.js';
import { loadMainnetChain, type MainnetChain } from '../helpers/mainnet-chain.js';

const cidA = CID.parse('bafy2bzacecnamqgqmifpluoeldx7zzglxcljo6oja4vrmtj7432rphldpdmm2');
const cidB = CID.parse('bafy2bzacedswlcz5ddgqnyo3sak3jmhmkxashisnlpq6ujgyhe4mlobzpnhs6');
/** DAG-CBOR of a CID: tag 42, byte string of 0x00 + the binary CID (39 bytes for blake2b-256 CIDs). */
const cborCid = (cid: CID) => `d82a5827${'00'}${toHex(cid.bytes)}`;

let chain: MainnetChain;
beforeAll(async () => {
  chain = await loadMainnetChain();
});

describe('hello', () => {
  test('HelloMessage is the tuple [[CID], int64, BigInt bytes, CID]', () => {
    const bytes = encodeHelloMessage({
      heaviestTipSet: [cidA, cidB],
      heaviestTipSetHeight: 1000n,
      heaviestTipSetWeight: 123456n,
      genesisHash: cidA,
    });
    // 84 = array(4); 82 = array(2); 1903e8 = 1000; 44 00 01e240 = BigInt bytes (sign byte 0, then 123456).
    expect(toHex(bytes)).toBe(`8482${cborCid(cidA)}${cborCid(cidB)}1903e8440001e240${cborCid(cidA)}`);
    expect(decodeHelloMessage(bytes)).toEqual({
      heaviestTipSet: [cidA, cidB],
      heaviestTipSetHeight: 1000n,
      heaviestTipSetWeight: 123456n,
      genesisHash: cidA,
    });
  });

  test('a zero weight is an empty byte string, and a negative height decodes', () => {
    const bytes = encodeHelloMessage({
      heaviestTipSet: [],
      heaviestTipSetHeight: -1n,
      heaviestTipSetWeight: 0n,
      genesisHash: cidB,
    });
    expect(toHex(bytes)).toBe(`84802040${cborCid(cidB)}`);
    expect(decodeHelloMessage(bytes).heaviestTipSetHeight).toBe(-1n);
  });

  test('LatencyMessage is [int64 ns, int64 ns]', () => {
    const bytes = encodeLatencyMessage({ tArrival: 1_700_000_000_000_000_000n, tSent: 1_700_000_000_000_000_500n });
    expect(toHex(bytes)).toBe('821b17979cfe362a00001b17979cfe362a01f4');
    expect(decodeLatencyMessage(bytes)).toEqual({
      tArrival: 1_700_000_000_000_000_000n,
      tSent: 1_700_000_000_000_000_500n,
    });
  });

  test('malformed hellos are refused with the field named', () => {
    expect(() => decodeHelloMessage(fromHex('83800000'))).toThrow(/HelloMessage: expected an array of 4 fields/);
    expect(() => decodeHelloMessage(fromHex(`84800040${cborCid(cidA)}00`))).toThrow(/HelloMessage/);
    expect(() => decodeHelloMessage(fromHex(`848000${'41ff'}${'01'}`))).toThrow(/HelloMessage/);
  });
});

describe('chain exchange', () => {
  test('Request is [[CID], uint64, uint64]', () => {
    const bytes = encodeExchangeRequest({ head: [cidA], length: 900n, options: 3n });
    expect(toHex(bytes)).toBe(`8381${cborCid(cidA)}19038403`);
    expect(decodeExchangeRequest(bytes)).toEqual({ head: [cidA], length: 900n, options: 3n });
    expect(() => decodeExchangeRequest(fromHex(`8381${cborCid(cidA)}2003`))).toThrow(/Request.Length/);
  });

  test('a headers response embeds the real mainnet header bytes', () => {
    const head = chain.tipSets[1] as TipSet; // height 38, two blocks
    const response = { status: ExchangeStatus.Ok, errorMessage: '', chain: [{ blocks: head.blocks, messages: null }] };
    const bytes = encodeExchangeResponse(response);
    const headers = head.blocks.map((header) => toHex(encodeBlockHeader(header))).join('');
    // 83 = array(3); 00 = Ok; 60 = ""; 81 = one tipset; 82 = [Blocks, Messages]; 82 = two headers; f6 = null.
    expect(toHex(bytes)).toBe(`8300608182${'82'}${headers}f6`);
    const decoded = decodeExchangeResponse(bytes);
    expect(decoded.chain[0]?.blocks.map(blockCid)).toEqual(head.cids);
  });

  test('CompactedMessages of a real tipset deduplicate and rebuild each block TxMeta', () => {
    const withMessages = chain.tipSets.find(
      (t) =>
        t.blocks.length > 1 &&
        t.blocks.some(
          (h) => chain.blockMessages(h).secpMessages.length + chain.blockMessages(h).blsMessages.length > 0,
        ),
    );
    expect(withMessages).toBeDefined();
    const tipSet = withMessages as TipSet;
    const perBlock = tipSet.blocks.map((header) => chain.blockMessages(header));
    const compacted = compactMessages(perBlock);
    const unique = new Set(perBlock.flatMap((b) => b.blsMessages.map((m) => messageCid(m).toString())));
    expect(compacted.bls.length).toBe(unique.size);
    const bytes = encodeExchangeResponse({ status: 0, errorMessage: '', chain: [{ blocks: [], messages: compacted }] });
    const expectedMessages = toHex(
      concatBytes(
        fromHex(
          compacted.bls.length < 24
            ? (0x80 + compacted.bls.length).toString(16)
            : `98${compacted.bls.length.toString(16).padStart(2, '0')}`,
        ),
        ...compacted.bls.map(encodeMessage),
      ),
    );
    expect(toHex(bytes)).toContain(expectedMessages);
    for (const signed of compacted.secpk) expect(toHex(bytes)).toContain(toHex(encodeSignedMessage(signed)));
    const decoded = decodeExchangeResponse(bytes).chain[0]!.messages!;
    const blocks = expandMessages(tipSet.blocks, decoded);
    blocks.forEach((block, i) => {
      expect(block.blsMessages.map(messageCid)).toEqual(perBlock[i]!.blsMessages.map(messageCid));
      expect(block.secpkMessages.map(signedMessageCid)).toEqual(perBlock[i]!.secpMessages.map(signedMessageCid));
    });
  });

  test('messages that do not match a header are refused', () => {
    const tipSet = chain.tipSets.find((t) => chain.blockMessages(t.blocks[0]!).blsMessages.length > 1) as TipSet;
    const compacted = compactMessages(tipSet.blocks.map((header) => chain.blockMessages(header)));
    const dropped = { ...compacted, blsIncludes: compacted.blsIncludes.map((list) => list.slice(1)) };
    expect(() => expandMessages(tipSet.blocks, dropped)).toThrow(/give TxMeta .* the header names/);
    const outOfRange = { ...compacted, blsIncludes: compacted.blsIncludes.map(() => [9999n]) };
    expect(() => expandMessages(tipSet.blocks, outOfRange)).toThrow(/includes message 9999/);
    expect(() => expandMessages(tipSet.blocks, { ...compacted, secpkIncludes: [] })).toThrow(/include lists/);
  });

  test('the server answers Ok, Partial at genesis, NotFound and BadRequest with Lotus codes', () => {
    const head = chain.tipSets[0] as TipSet;
    const ok = decodeExchangeResponse(
      encodeExchangeResponse(
        serveExchangeBytes(chain, encodeExchangeRequest({ head: head.cids, length: 5n, options: 1n })),
      ),
    );
    expect(ok.status).toBe(0);
    expect(ok.chain.map((t) => t.blocks[0]!.height)).toEqual([39n, 38n, 37n, 36n, 35n]);
    const partial = serveExchangeBytes(chain, encodeExchangeRequest({ head: head.cids, length: 900n, options: 3n }));
    expect(partial.status).toBe(101);
    expect(partial.chain.length).toBe(chain.tipSets.length);
    expect(serveExchangeBytes(chain, encodeExchangeRequest({ head: [cidB], length: 1n, options: 1n })).status).toBe(
      201,
    );
    const bad = (length: bigint, options: bigint, headCids = head.cids) =>
      serveExchangeBytes(chain, encodeExchangeRequest({ head: headCids, length, options }));
    expect(bad(0n, 1n)).toMatchObject({ status: 204, errorMessage: 'invalid request length: 0' });
    expect(bad(901n, 1n)).toMatchObject({
      status: 204,
      errorMessage: expect.stringMatching(/over maximum allowed \(900\)/),
    });
    expect(bad(1n, 0n)).toMatchObject({ status: 204, errorMessage: 'no options set' });
    expect(bad(1n, 1n, [])).toMatchObject({ status: 204, errorMessage: 'no cids in request' });
    expect(serveExchangeBytes(chain, fromHex('ff')).status).toBe(204);
  });
});

describe('block gossip', () => {
  test('BlockMsg is [Header, [CID], [CID]] and trailing bytes are refused', () => {
    const header = (chain.tipSets[2] as TipSet).blocks[0]!;
    const block = { header, blsMessages: [cidA], secpkMessages: [] };
    const bytes = encodeBlockMsg(block);
    expect(toHex(bytes)).toBe(`83${toHex(encodeBlockHeader(header))}81${cborCid(cidA)}80`);
    expect(blockCid(decodeBlockMsg(bytes).header)).toEqual(blockCid(header));
    expect(() => decodeBlockMsg(concatBytes(bytes, fromHex('00')))).toThrow(/BlockMsg/);
  });
});
