/**
 * The devnet's Ethereum accounts end to end (real mining, proofs and signatures): created and funded
 * at genesis as EthAccounts at their f410 addresses, handed out as Anvil prints them (0x address,
 * f410 address, raw private key), their keys in the node's wallet; `ledger send` from one (run
 * through the CLI's `main()` in this process) is signed as an Ethereum transaction, passes the pool,
 * is mined in a block the node validates, and the VM moves the value.
 */
import { computeAddress } from 'ethers';
import { main } from '../../src/cli/main.js';
import { RpcClient } from '../../src/rpc/index.js';
import { ACTOR_CODES } from '../../src/state/index.js';
import { FILECOIN_PRECISION } from '../../src/types/index.js';
import { EVM_INVOKE_CONTRACT_METHOD } from '../../src/vm/index.js';
import { withCliOutput } from '../helpers/cli-in-process.js';
import { type Devnet, startDevnet } from '../helpers/devnet.js';

const PROOF_TIMEOUT_MS = 10 * 60_000;
const TEST_TIMEOUT_MS = 12 * 60_000;
const FIL = FILECOIN_PRECISION;

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let devnet: Devnet;

beforeAll(async () => {
  devnet = await startDevnet({ blockTimeMs: 4000, accounts: 1, ethAccounts: 2 });
  await devnet.waitForHeight(1, PROOF_TIMEOUT_MS);
}, PROOF_TIMEOUT_MS);
afterAll(() => devnet?.stop());

test('genesis funds EthAccounts whose keys the wallet holds, printed as Anvil prints them', async () => {
  expect(devnet.ethAccounts).toHaveLength(2);
  const held = await devnet.rpc<string[]>('WalletList');
  for (const account of devnet.ethAccounts) {
    expect(account.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(account.filecoinAddress).toMatch(/^t410f[a-z2-7]{39}$/);
    expect(computeAddress(account.privateKey).toLowerCase()).toBe(account.address);
    expect(account.balance).toBe(10_000n * FIL);
    expect(held).toContain(account.filecoinAddress);
    const id = await devnet.rpc<string>('StateLookupID', [account.filecoinAddress, []]);
    const actor = await devnet.rpc<Json>('StateGetActor', [id, []]);
    expect(actor.Code['/']).toBe(ACTOR_CODES.ethaccount.toString());
    expect(actor.DelegatedAddress).toBe(account.filecoinAddress);
    expect(BigInt(actor.Balance)).toBe(10_000n * FIL);
  }
});

test(
  '`ledger send` from an Ethereum account lands on chain and moves the value',
  async () => {
    const [from, to] = devnet.ethAccounts;
    const apiInfo = `${devnet.token}:${devnet.url.replace(/\/rpc\/v1$/, '')}`;
    const printed = await withCliOutput(apiInfo, async (writes) => {
      await main(['node', 'ledger', 'send', '--from', from!.filecoinAddress, to!.address, '5']);
      return writes.join('');
    });
    expect(printed).toContain(`Using Method: ${EVM_INVOKE_CONTRACT_METHOD}\n`);
    const cid = /^(bafy2bza[a-z2-7]+)$/m.exec(printed)?.[1];
    expect(cid).toBeDefined();

    const waiter = new RpcClient({ url: devnet.url, token: devnet.token, timeoutMs: TEST_TIMEOUT_MS });
    const found = (await waiter.request('Filecoin.StateWaitMsg', [{ '/': cid }, 0, -1, true])) as Json;
    expect(found.Receipt.ExitCode).toBe(0);
    const landed = await devnet.rpc<Json>('ChainGetMessage', [{ '/': cid }]);
    expect(landed.From).toBe(from!.filecoinAddress);
    // Included under its signed CID in a block's secp list, as secp256k1 messages are.
    const executedIn = await devnet.rpc<Json>('ChainGetTipSet', [found.TipSet]);
    const carriers = await Promise.all(
      (executedIn.Blocks[0].Parents as Json[]).map((block) => devnet.rpc<Json>('ChainGetBlockMessages', [block])),
    );
    const carried = carriers.flatMap((messages) => messages.SecpkMessages as Json[]).find((m) => m.CID['/'] === cid);
    expect(carried?.Signature.Type).toBe(3);

    const balance = async (address: string) => BigInt(await devnet.rpc<string>('WalletBalance', [address]));
    expect(await balance(to!.filecoinAddress)).toBe(10_005n * FIL);
    expect(await balance(from!.filecoinAddress)).toBeLessThan(9_995n * FIL);
  },
  TEST_TIMEOUT_MS,
);
