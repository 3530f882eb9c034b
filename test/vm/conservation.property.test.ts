/**
 * FIL is conserved: whatever messages a tipset carries — valid or not, to existing or new f1, f3
 * and f410 addresses, with any values, gas limits, fee caps and nonces — the balances of all
 * actors (burnt funds and the reward actor included) still sum to exactly 2·10^9 FIL, and none is
 * negative.
 */
import fc from 'fast-check';
import { Address, type Message, type SignedMessage } from '../../src/types/index.js';
import { AccountMethod, EVM_INVOKE_CONTRACT_METHOD } from '../../src/vm/index.js';
import { applyAt } from '../helpers/apply-tipset.js';
import { FIL, MINER, PARAMS, standardGenesis } from '../helpers/genesis.js';
import { keys, type SecpKey } from '../helpers/keys.js';
import { message, signSecp } from '../helpers/messages.js';
import { loadTree } from '../helpers/state.js';

const chain = standardGenesis();
const secpSenders: SecpKey[] = [keys.alice, keys.bob];

const recipient = fc.oneof(
  fc.constantFrom(
    keys.alice.address,
    keys.bob.address,
    keys.carol.address,
    keys.worker.address,
    MINER,
    Address.newId(99n),
    Address.newId(2n),
  ),
  fc.uint8Array({ minLength: 64, maxLength: 64 }).map((key) => Address.newSecp256k1(Uint8Array.from([4, ...key]))),
  fc.uint8Array({ minLength: 48, maxLength: 48 }).map((key) => Address.newBls(key)),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((sub) => Address.newDelegated(10n, sub)),
  fc.bigInt({ min: 5000n, max: 1n << 40n }).map((id) => Address.newId(id)),
);

const messageSpec = fc.record({
  sender: fc.nat({ max: 3 }),
  to: recipient,
  value: fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 20n * FIL })),
  gasLimit: fc.bigInt({ min: 50_000n, max: 60_000_000n }),
  gasFeeCap: fc.bigInt({ min: 0n, max: 10n ** 9n }),
  premiumShare: fc.nat({ max: 100 }),
  nonceSkew: fc.oneof(
    { arbitrary: fc.constant(0n), weight: 8 },
    { arbitrary: fc.bigInt({ min: -1n, max: 2n }), weight: 1 },
  ),
  method: fc.oneof(
    { arbitrary: fc.constant(0n), weight: 6 },
    { arbitrary: fc.constantFrom(EVM_INVOKE_CONTRACT_METHOD, AccountMethod.PubkeyAddress, 3n), weight: 1 },
  ),
});

const tipsetSpec = fc.record({
  baseFee: fc.bigInt({ min: 100n, max: 10n ** 9n }),
  blocks: fc.array(fc.array(messageSpec, { maxLength: 5 }), { minLength: 1, maxLength: 2 }),
});

test('the total supply stays 2e9 FIL over random message sequences', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(tipsetSpec, { minLength: 1, maxLength: 3 }), async (tipsets) => {
      let root = chain.genesisRoot;
      const nonces = new Map<string, bigint>();
      for (const [index, tipset] of tipsets.entries()) {
        const blocks = tipset.blocks.map((specs) => {
          const secpMessages: SignedMessage[] = [];
          const blsMessages: Message[] = [];
          for (const spec of specs) {
            // Senders 0–1 sign secp256k1 messages, 2 is carol's BLS account, 3 a key nobody funded.
            const from =
              spec.sender < 2
                ? secpSenders[spec.sender]!.address
                : spec.sender === 2
                  ? keys.carol.address
                  : Address.newId(4242n);
            const key = from.toString();
            const nonce = (nonces.get(key) ?? 0n) + spec.nonceSkew;
            nonces.set(key, (nonces.get(key) ?? 0n) + 1n);
            const fields = message({
              from,
              to: spec.to,
              nonce: nonce < 0n ? 0n : nonce,
              value: spec.value,
              gasLimit: spec.gasLimit,
              gasFeeCap: spec.gasFeeCap,
              gasPremium: (spec.gasFeeCap * BigInt(spec.premiumShare)) / 100n,
              method: spec.method,
            });
            if (spec.sender < 2) secpMessages.push(signSecp(secpSenders[spec.sender]!, fields));
            else blsMessages.push(fields);
          }
          return { miner: MINER, winCount: 1n, blsMessages, secpMessages };
        });
        const result = await applyAt(chain, root, BigInt(index + 1), blocks, { baseFee: tipset.baseFee });
        root = result.stateRoot;
        let total = 0n;
        for (const [, actor] of loadTree(chain, root).actors()) {
          expect(actor.balance >= 0n).toBe(true);
          total += actor.balance;
        }
        expect(total).toBe(PARAMS.totalFilecoin);
      }
    }),
    { numRuns: 2000 },
  );
}, 600_000);
