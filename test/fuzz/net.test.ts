/**
 * Fuzz of what peers send (src/net): hello and latency messages, chain-exchange requests (served
 * by `serveExchangeBytes`) and responses (read by `ChainExchangeClient`, which checks them against
 * the headers asked for), and the stream framing that cuts one CBOR object off a libp2p stream.
 * Block and message gossip payloads are `decodeBlockMsg` / `decodeSignedMessage`, fuzzed in
 * chain-types.test.ts. Inputs: random bytes and mutations of real encodings built from mainnet
 * epochs 0–39 (export40.car). Each is decoded or refused with a typed error; the server always
 * answers a response; the client only ever throws NetError. Round trips of arbitrary hello,
 * latency and request values re-encode to the same bytes.
 */
import type { Stream } from '@libp2p/interface';
import fc from 'fast-check';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import {
  ChainExchangeClient,
  decodeExchangeRequest,
  decodeExchangeResponse,
  decodeHelloMessage,
  decodeLatencyMessage,
  ExchangeStatus,
  encodeExchangeRequest,
  encodeExchangeResponse,
  encodeHelloMessage,
  encodeLatencyMessage,
  serveExchangeBytes,
} from '../../src/net/index.js';
import { readCborObject } from '../../src/net/stream-io.js';
import { AddressErrorCode, MAX_INT64, MAX_UINT64, MIN_INT64, type TipSet } from '../../src/types/index.js';
import { loadMainnetChain, type MainnetChain } from '../helpers/mainnet-chain.js';
import { decodeChecked, decodeCheckedAsync, fuzzParams, hex, mutationsOf, randomBytes, SEED } from './fuzz-kit.js';

const CBOR_CODES = ['ERR_CBOR_DECODE', ...Object.values(AddressErrorCode)];

let chain: MainnetChain;
let hellos: Uint8Array[];
let requests: Uint8Array[];
let responses: Uint8Array[];
beforeAll(async () => {
  chain = await loadMainnetChain();
  const genesis = chain.genesis.cids[0]!;
  hellos = chain.tipSets.slice(0, 8).map((t) =>
    encodeHelloMessage({
      heaviestTipSet: t.cids,
      heaviestTipSetHeight: t.height,
      heaviestTipSetWeight: t.parentWeight,
      genesisHash: genesis,
    }),
  );
  requests = chain.tipSets
    .slice(0, 5)
    .flatMap((t, i) => [
      encodeExchangeRequest({ head: t.cids, length: BigInt(i + 1), options: 1n }),
      encodeExchangeRequest({ head: t.cids, length: 3n, options: 3n }),
    ]);
  // Real answers of our server for the head: headers only, messages only, both.
  responses = [1n, 2n, 3n].flatMap((options) =>
    [1n, 3n].map((length) =>
      encodeExchangeResponse(
        serveExchangeBytes(chain, encodeExchangeRequest({ head: chain.tipSets[0]!.cids, length, options })),
      ),
    ),
  );
}, 60_000);

describe(`peer messages (fast-check seed ${SEED})`, () => {
  const cases = [
    { name: 'HelloMessage', decode: decodeHelloMessage, encode: encodeHelloMessage, valid: () => hellos },
    {
      name: 'LatencyMessage',
      decode: decodeLatencyMessage,
      encode: encodeLatencyMessage,
      valid: () => [encodeLatencyMessage({ tArrival: 1_700_000_000_000_000_000n, tSent: -1n })],
    },
    { name: 'Request', decode: decodeExchangeRequest, encode: encodeExchangeRequest, valid: () => requests },
    { name: 'Response', decode: decodeExchangeResponse, encode: encodeExchangeResponse, valid: () => responses },
  ] as const;

  describe.each(cases)('$name', ({ name, decode, encode, valid }) => {
    const rule = { codes: CBOR_CODES, names: new RegExp(`\\b${name}\\b`) };
    const check = (bytes: Uint8Array) => {
      const outcome = decodeChecked(() => decode(bytes), rule, bytes);
      if (outcome.ok) expect(hex(encode(outcome.value as never))).toBe(hex(bytes));
    };

    test('random bytes and mutated real encodings: a value that re-encodes identically, or a typed error', () => {
      for (const bytes of valid()) check(bytes);
      fc.assert(
        fc.property(fc.oneof(randomBytes, { weight: 3, arbitrary: mutationsOf(valid()) }), check),
        fuzzParams(name === 'Response' ? 0.5 : 1),
      );
    });
  });

  test('serveExchangeBytes answers every request, refusing bad ones with BadRequest (204)', () => {
    const statuses = new Set<number>(Object.values(ExchangeStatus));
    fc.assert(
      fc.property(fc.oneof(randomBytes, { weight: 3, arbitrary: mutationsOf(requests) }), (bytes) => {
        const outcome = decodeChecked(() => serveExchangeBytes(chain, bytes), { codes: [] }, bytes);
        if (!outcome.ok) throw outcome.error;
        expect(statuses.has(outcome.value.status)).toBe(true);
        expect(typeof outcome.value.errorMessage).toBe('string');
      }),
      fuzzParams(0.5),
    );
  });

  test('ChainExchangeClient checks every response and throws only NetError', async () => {
    const head = chain.tipSets[0] as TipSet;
    const netRule = {
      codes: ['ERR_NET_BAD_MESSAGE', 'ERR_NET_EXCHANGE_FAILED'],
      names: /chain exchange with peer-x|BlsIncludes|SecpkIncludes|messages/,
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(randomBytes, { weight: 4, arbitrary: mutationsOf(responses) }),
        fc.constantFrom(1, 3),
        fc.boolean(),
        async (bytes, length, messages) => {
          const client = new ChainExchangeClient(async () => bytes);
          const tipSets = chain.tipSets.slice(0, length);
          await decodeCheckedAsync<unknown>(
            () =>
              messages ? client.getChainMessages('peer-x', tipSets) : client.getBlocks('peer-x', head.key, length),
            netRule,
            bytes,
          );
        },
      ),
      fuzzParams(0.5),
    );
  });

  test('ChainExchangeClient: well-formed responses with the wrong content (tipsets dropped, swapped, include lists bent) throw NetError only', async () => {
    const head = chain.tipSets[0] as TipSet;
    const tipSets = chain.tipSets.slice(0, 4);
    const real = decodeExchangeResponse(
      encodeExchangeResponse(
        serveExchangeBytes(chain, encodeExchangeRequest({ head: head.cids, length: 4n, options: 3n })),
      ),
    );
    const index = fc.oneof(fc.bigInt({ min: 0n, max: 20n }), fc.constantFrom(2n ** 53n + 1n, 2n ** 64n - 1n));
    const bendIncludes = (lists: readonly (readonly bigint[])[]) =>
      fc
        .tuple(fc.nat(), fc.constantFrom('drop-list', 'add-list', 'drop-index', 'set-index', 'keep'), index)
        .map(([pick, kind, value]) => {
          const out = lists.map((list) => [...list]);
          const at = out.length === 0 ? 0 : pick % out.length;
          if (kind === 'drop-list') out.splice(at, 1);
          else if (kind === 'add-list') out.push([value]);
          else if (kind === 'drop-index') out[at]?.pop();
          else if (kind === 'set-index') out[at]?.splice(0, 1, value);
          return out;
        });
    const bent = fc
      .tuple(
        fc.constantFrom('none', 'drop-tipset', 'reverse', 'duplicate', 'drop-block', 'no-messages'),
        fc.nat(),
        fc.constantFrom(0, 101, 201, 203, 999),
        fc.boolean(),
      )
      .chain(([kind, pick, status, keepStatus]) => {
        const chainOut = real.chain.map((entry) => ({ ...entry }));
        const at = pick % chainOut.length;
        if (kind === 'drop-tipset') chainOut.splice(at, 1);
        if (kind === 'reverse') chainOut.reverse();
        if (kind === 'duplicate') chainOut.splice(at, 0, chainOut[at]!);
        if (kind === 'drop-block') chainOut[at] = { ...chainOut[at]!, blocks: chainOut[at]!.blocks.slice(1) };
        if (kind === 'no-messages') chainOut[at] = { ...chainOut[at]!, messages: null };
        const target = chainOut[at];
        const messages = target?.messages;
        const withIncludes =
          messages === null || messages === undefined
            ? fc.constant(chainOut)
            : fc.tuple(bendIncludes(messages.blsIncludes), bendIncludes(messages.secpkIncludes)).map(([bls, secpk]) => {
                const copy = [...chainOut];
                copy[at] = { ...target!, messages: { ...messages, blsIncludes: bls, secpkIncludes: secpk } };
                return copy;
              });
        return withIncludes.map((entries) => ({
          status: keepStatus ? real.status : status,
          errorMessage: 'fuzz',
          chain: entries,
        }));
      });
    const netRule = { codes: ['ERR_NET_BAD_MESSAGE', 'ERR_NET_EXCHANGE_FAILED'], names: /chain exchange with peer-x/ };
    const honest = new ChainExchangeClient(async () => encodeExchangeResponse(real));
    expect((await honest.getChainMessages('peer-x', tipSets)).length).toBe(4);
    expect((await honest.getBlocks('peer-x', head.key, 4)).map((t) => t.height)).toEqual(tipSets.map((t) => t.height));
    await fc.assert(
      fc.asyncProperty(bent, fc.boolean(), async (response, messages) => {
        const bytes = encodeExchangeResponse(response);
        const client = new ChainExchangeClient(async () => bytes);
        await decodeCheckedAsync<unknown>(
          () => (messages ? client.getChainMessages('peer-x', tipSets) : client.getBlocks('peer-x', head.key, 4)),
          netRule,
          bytes,
        );
      }),
      fuzzParams(0.15),
    );
  });

  /** A libp2p stream as readCborObject sees it: chunks to iterate, and abort. */
  const streamOf = (chunks: Uint8Array[]): Stream =>
    ({
      async *[Symbol.asyncIterator]() {
        yield* chunks;
      },
      abort() {},
    }) as unknown as Stream;

  test('readCborObject cuts one CBOR object off a stream or refuses with ERR_NET_BAD_MESSAGE', async () => {
    const limits = { maxBytes: 64 * 1024, timeoutMs: 2_000, what: 'fuzz message' };
    const rule = { codes: ['ERR_NET_BAD_MESSAGE'], names: /fuzz message/ };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(randomBytes, { weight: 3, arbitrary: mutationsOf([...hellos, ...requests]) }),
        fc.array(fc.integer({ min: 1, max: 64 }), { maxLength: 6 }),
        async (bytes, sizes) => {
          const chunks: Uint8Array[] = [];
          let at = 0;
          for (const size of sizes) {
            if (at >= bytes.length) break;
            chunks.push(bytes.subarray(at, at + size));
            at += size;
          }
          if (at < bytes.length) chunks.push(bytes.subarray(at));
          const outcome = await decodeCheckedAsync(() => readCborObject(streamOf(chunks), limits), rule, bytes);
          // The first complete object, as soon as it is whole (a peer may keep its stream open after it).
          if (outcome.ok) expect(hex(bytes).startsWith(hex(outcome.value))).toBe(true);
        },
      ),
      fuzzParams(0.5),
    );
  });
});

describe(`round trips of arbitrary values (fast-check seed ${SEED})`, () => {
  const cid = fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .map((digest) => CID.createV1(0x71, Digest.create(0xb220, digest)));
  const int64 = fc.bigInt({ min: MIN_INT64, max: MAX_INT64 });
  const uint64 = fc.bigInt({ min: 0n, max: MAX_UINT64 });

  test('HelloMessage, LatencyMessage and Request decode what they encode, byte for byte', () => {
    fc.assert(
      fc.property(
        fc.record({
          heaviestTipSet: fc.array(cid, { maxLength: 5 }),
          heaviestTipSetHeight: int64,
          heaviestTipSetWeight: fc.bigInt({ min: -(2n ** 1000n), max: 2n ** 1000n }),
          genesisHash: cid,
        }),
        fc.record({ tArrival: int64, tSent: int64 }),
        fc.record({ head: fc.array(cid, { maxLength: 5 }), length: uint64, options: uint64 }),
        (hello, latency, request) => {
          const helloBytes = encodeHelloMessage(hello);
          expect(decodeHelloMessage(helloBytes)).toEqual(hello);
          expect(hex(encodeHelloMessage(decodeHelloMessage(helloBytes)))).toBe(hex(helloBytes));
          expect(decodeLatencyMessage(encodeLatencyMessage(latency))).toEqual(latency);
          const requestBytes = encodeExchangeRequest(request);
          expect(decodeExchangeRequest(requestBytes)).toEqual(request);
          expect(hex(encodeExchangeRequest(decodeExchangeRequest(requestBytes)))).toBe(hex(requestBytes));
        },
      ),
      fuzzParams(0.15),
    );
  });
});
