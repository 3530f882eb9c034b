/**
 * Native crypto (Rust: blst + k256 through napi-rs) against the pure-JS choice (@noble/curves) and,
 * for BLS verification, @chainsafe/blst (the same blst core; it hard-codes Ethereum's POP DST,
 * which costs the same). Every case checks that the implementations agree before timing them.
 *
 *   npm run bench:crypto
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as chainsafe from '@chainsafe/blst';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { secp256k1 as nobleSecp } from '@noble/curves/secp256k1.js';
import { blake2b as nobleBlake2b } from '@noble/hashes/blake2.js';
import { blake2b256, bls, secp256k1 } from '../src/crypto/index.js';
import { assertAgree, type Measurement, measure, report, speedup } from './harness.js';

const FILECOIN_DST = 'BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_';
const noble = bls12_381.longSignatures; // min-pk: G1 public keys, G2 signatures, as Filecoin
const results: Measurement[] = [];

function seed(i: number): Uint8Array {
  const s = new Uint8Array(32);
  new DataView(s.buffer).setUint32(0, i + 1);
  return s;
}

/** A 38-byte stand-in for a binary message CID: what Filecoin actually signs. */
function fakeCid(i: number): Uint8Array {
  const bytes = new Uint8Array(38);
  bytes.set([0x01, 0x71, 0xa0, 0xe4, 0x02, 0x20]);
  bytes.set(blake2b256(seed(i)), 6);
  return bytes;
}

const bigEndian = (le: Uint8Array) => Uint8Array.from(le).reverse();

async function blsCases(): Promise<void> {
  const sk = bls.privateKeyFromSeed(seed(0));
  const pk = bls.publicKey(sk);
  const msg = fakeCid(0);
  const sig = bls.sign(sk, msg);
  const hashedForNoble = () => noble.hash(msg, FILECOIN_DST);
  const csSk = chainsafe.SecretKey.fromKeygen(seed(0));
  const csPk = csSk.toPublicKey();
  const csSig = csSk.sign(msg);
  const csPkBytes = csPk.toBytes();
  const csSigBytes = csSig.toBytes();

  assertAgree('bls sign', {
    native: sig,
    noble: noble.Signature.toBytes(noble.sign(hashedForNoble(), bigEndian(sk))),
  });
  assertAgree('bls verify', {
    native: bls.verify(pk, msg, sig),
    noble: noble.verify(sig, hashedForNoble(), pk),
    'chainsafe-blst': chainsafe.verify(msg, csPk, csSig),
  });

  results.push(await measure('bls sign', 'native', () => bls.sign(sk, msg)));
  results.push(
    await measure('bls sign', 'noble', () => noble.sign(noble.hash(msg, FILECOIN_DST), bigEndian(sk)), {
      iterations: 5,
    }),
  );
  results.push(await measure('bls verify', 'native', () => bls.verify(pk, msg, sig)));
  results.push(
    await measure('bls verify', 'noble', () => noble.verify(sig, noble.hash(msg, FILECOIN_DST), pk), { iterations: 5 }),
  );
  // From bytes, as a node holds them: keys and signatures arrive serialized.
  results.push(
    await measure('bls verify', 'chainsafe-blst', () =>
      chainsafe.verify(
        msg,
        chainsafe.PublicKey.fromBytes(csPkBytes),
        chainsafe.Signature.fromBytes(csSigBytes),
        true,
        true,
      ),
    ),
  );

  const n = 1000;
  const keys = Array.from({ length: n }, (_, i) => bls.privateKeyFromSeed(seed(i)));
  const msgs = Array.from({ length: n }, (_, i) => fakeCid(i));
  const items = keys.map((k, i) => ({ publicKey: bls.publicKey(k), message: msgs[i]! }));
  const aggregate = bls.aggregate(keys.map((k, i) => bls.sign(k, msgs[i]!)));
  const csKeys = Array.from({ length: n }, (_, i) => chainsafe.SecretKey.fromKeygen(seed(i)));
  const csPks = csKeys.map((k) => k.toPublicKey().toBytes());
  const csAggregate = chainsafe.aggregateSignatures(csKeys.map((k, i) => k.sign(msgs[i]!))).toBytes();
  const nobleItems = () =>
    items.map((it) => ({ message: noble.hash(it.message, FILECOIN_DST), publicKey: it.publicKey }));
  const caseName = `bls aggregate-verify ${n}`;
  const chainsafeAggregateVerify = () =>
    chainsafe.aggregateVerify(
      msgs,
      csPks.map((b) => chainsafe.PublicKey.fromBytes(b)),
      chainsafe.Signature.fromBytes(csAggregate),
      true,
      true,
    );
  assertAgree(caseName, {
    native: bls.aggregateVerify(items, aggregate),
    noble: noble.verifyBatch(aggregate, nobleItems()),
    'chainsafe-blst': chainsafeAggregateVerify(),
  });
  results.push(
    await measure(caseName, 'native', () => bls.aggregateVerify(items, aggregate), { iterations: 10, time: 4000 }),
  );
  results.push(await measure(caseName, 'chainsafe-blst', chainsafeAggregateVerify, { iterations: 10, time: 4000 }));
  results.push(
    await measure(caseName, 'noble', () => noble.verifyBatch(aggregate, nobleItems()), {
      iterations: 2,
      time: 0,
      warmup: false,
    }),
  );
}

async function secpCases(): Promise<void> {
  const sk = secp256k1.generatePrivateKey();
  const data = fakeCid(7);
  const sig = secp256k1.sign(sk, data);
  // noble's "recovered" format puts the recovery byte first; Filecoin puts it last.
  const nobleSig = new Uint8Array([sig[64]!, ...sig.subarray(0, 64)]);
  const nobleRecover = () =>
    nobleSecp.Point.fromBytes(
      nobleSecp.recoverPublicKey(nobleSig, nobleBlake2b(data, { dkLen: 32 }), { prehash: false }),
    ).toBytes(false);
  const nobleSign = () =>
    nobleSecp.sign(nobleBlake2b(data, { dkLen: 32 }), sk, { prehash: false, format: 'recovered' });

  assertAgree('secp256k1 recover', { native: secp256k1.recover(sig, data), noble: nobleRecover() });
  const nobleSigned = nobleSign();
  assertAgree('secp256k1 sign', {
    native: sig,
    noble: new Uint8Array([...nobleSigned.subarray(1), nobleSigned[0]!]),
  });
  results.push(await measure('secp256k1 recover', 'native', () => secp256k1.recover(sig, data)));
  results.push(await measure('secp256k1 recover', 'noble', nobleRecover));
  results.push(await measure('secp256k1 sign', 'native', () => secp256k1.sign(sk, data)));
  results.push(await measure('secp256k1 sign', 'noble', nobleSign));
}

async function blake2bCases(): Promise<void> {
  const data = new Uint8Array(180).fill(3); // about one message's CBOR
  assertAgree('blake2b-256 180B', { native: blake2b256(data), noble: nobleBlake2b(data, { dkLen: 32 }) });
  results.push(await measure('blake2b-256 180B', 'native', () => blake2b256(data)));
  results.push(await measure('blake2b-256 180B', 'noble', () => nobleBlake2b(data, { dkLen: 32 })));
}

/** Largest event-loop delay while 2,000 BLS signatures are batch-verified off the main thread. */
async function eventLoopDuringBatch(): Promise<{ maxDelayMs: number; batchMs: number }> {
  const n = 2000;
  const items = Array.from({ length: n }, (_, i) => {
    const sk = bls.privateKeyFromSeed(seed(i));
    const message = fakeCid(i);
    return { publicKey: bls.publicKey(sk), message, signature: bls.sign(sk, message) };
  });
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  const started = performance.now();
  const verdicts = await bls.verifyBatch(items);
  const batchMs = performance.now() - started;
  histogram.disable();
  if (!verdicts.every(Boolean)) throw new Error('batch verification rejected a valid signature');
  return { maxDelayMs: histogram.max / 1e6, batchMs };
}

await blsCases();
await secpCases();
await blake2bCases();
const eventLoop = await eventLoopDuringBatch();
console.error(
  `  event loop: max delay ${eventLoop.maxDelayMs.toFixed(1)} ms during a ${eventLoop.batchMs.toFixed(0)} ms batch of 2,000`,
);

const aggregateCase = 'bls aggregate-verify 1000';
report(
  'crypto',
  results,
  {
    'bls verify native/noble': speedup(results, 'bls verify', 'native', 'noble'),
    'bls verify native/chainsafe-blst': speedup(results, 'bls verify', 'native', 'chainsafe-blst'),
    'bls sign native/noble': speedup(results, 'bls sign', 'native', 'noble'),
    [`${aggregateCase} native/noble`]: speedup(results, aggregateCase, 'native', 'noble'),
    // Time ratio: how much longer ours takes than @chainsafe/blst (target ≤ 1.25).
    [`${aggregateCase} time native/chainsafe-blst`]: speedup(results, aggregateCase, 'chainsafe-blst', 'native'),
    'secp256k1 recover native/noble': speedup(results, 'secp256k1 recover', 'native', 'noble'),
    'secp256k1 sign native/noble': speedup(results, 'secp256k1 sign', 'native', 'noble'),
    'blake2b-256 180B native/noble': speedup(results, 'blake2b-256 180B', 'native', 'noble'),
  },
  { eventLoopDuringBatchVerify2000: eventLoop },
);
