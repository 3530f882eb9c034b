/**
 * ERC-20 transfers as Ethereum wallets send them (signed EIP-1559 raw transactions), applied by two
 * chains from the same bytes, for bench/evm.bench.ts:
 *
 * - ledger-node's VM: each raw transaction becomes the delegated-signed Filecoin message
 *   `eth_sendRawTransaction` would pool (`parseRawEthTransaction`), tipsets of them are applied by
 *   one TipsetExecutor into SQLite-backed state, and every tipset's signatures are checked as block
 *   validation checks them (transaction rebuilt, signer recovered in one native batch off the main
 *   thread, compared with the sender) while the previous tipset is applied;
 * - Hardhat's in-process network (`hardhat` from npm, bench/hardhat.config.cjs): the raw
 *   transactions through `eth_sendRawTransaction`, automine on (a block per transaction).
 *
 * The sender is Hardhat's first default account, funded on our chain by a genesis account; it
 * deploys the token (nonce 0, so the token has the same address on both chains) and sends every
 * transfer. Both must end with the same token balances.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getCreateAddress, Interface, Wallet } from 'ethers';
import { buildGenesis } from '../src/chain/genesis/index.js';
import { secp256k1 } from '../src/crypto/index.js';
import { LedgerDatabase } from '../src/db/index.js';
import { DEVNET_2K } from '../src/params/index.js';
import {
  decodeChainCbor,
  delegatedAddressFromPublicKey,
  delegatedRecoveryInput,
  messageSigningBytes,
  parseRawEthTransaction,
  readBytes,
  SignatureType,
  type SignedMessage,
} from '../src/types/index.js';
import { fromHex, toHex } from '../src/utils/bytes.js';
import { TipsetExecutor } from '../src/vm/index.js';
import type { CompiledContract } from '../test/vm/evm/solidity.js';
import { applyBenchTipset, benchGenesis } from './bench-genesis.js';

const params = DEVNET_2K;
const FIL = 10n ** 18n;
/** Hardhat's first default account (hardhat.org/hardhat-network/docs/reference#accounts): a public test key. */
const SENDER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
/** Gas limits in FVM gas (about 444 times Ethereum's, docs.filecoin.io): enough on both chains. */
const DEPLOY_GAS_LIMIT = 1_000_000_000n;
const TRANSFER_GAS_LIMIT = 100_000_000n;
const MAX_FEE_PER_GAS = 1_000_000_000n;
const MAX_PRIORITY_FEE_PER_GAS = 1000n;

export interface TransferWorkload {
  /** The deployment of the token (the sender's first transaction). */
  readonly deploy: string;
  /** The transfers, raw signed EIP-1559 transactions, in nonce order. */
  readonly transfers: readonly string[];
  readonly token: string;
  readonly recipients: readonly string[];
  readonly tokenAbi: Interface;
}

/** Signs the deployment and `count` transfers of one token unit each, round-robin over `recipientCount` addresses. */
export async function signTransfers(
  token: CompiledContract,
  supply: bigint,
  count: number,
  recipientCount: number,
): Promise<TransferWorkload> {
  const wallet = new Wallet(SENDER_KEY);
  const tokenAbi = new Interface(token.abi as never);
  const fields = {
    chainId: params.eip155ChainId,
    type: 2,
    maxFeePerGas: MAX_FEE_PER_GAS,
    maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS,
    value: 0n,
  };
  const deploy = await wallet.signTransaction({
    ...fields,
    nonce: 0,
    gasLimit: DEPLOY_GAS_LIMIT,
    data: `0x${toHex(token.bytecode)}${tokenAbi.encodeDeploy([supply]).slice(2)}`,
  });
  const tokenAddress = getCreateAddress({ from: wallet.address, nonce: 0 });
  const recipients = Array.from({ length: recipientCount }, (_, i) => `0xaa${(i + 1).toString(16).padStart(38, '0')}`);
  const transfers: string[] = [];
  for (let i = 0; i < count; i++) {
    transfers.push(
      await wallet.signTransaction({
        ...fields,
        nonce: i + 1,
        gasLimit: TRANSFER_GAS_LIMIT,
        to: tokenAddress,
        data: tokenAbi.encodeFunctionData('transfer', [recipients[i % recipientCount], 1n]),
      }),
    );
  }
  return { deploy, transfers, token: tokenAddress, recipients, tokenAbi };
}

/** The balance of `of` that `count` round-robin transfers over `recipients` leave. */
export function expectedBalance(workload: TransferWorkload, of: number, count: number): bigint {
  const n = workload.recipients.length;
  return BigInt(Math.floor(count / n) + (of < count % n ? 1 : 0));
}

// ---- ledger-node's VM -------------------------------------------------------------------------

const { template, funderKey, funder } = benchGenesis('bench-evm');

/** Block validation's check of delegated signatures: the signer each recovers must be its sender. */
async function checkDelegatedSignatures(messages: readonly SignedMessage[]): Promise<void> {
  const keys = await secp256k1.recoverDigestBatch(
    messages.map((signed) => delegatedRecoveryInput(signed, params.eip155ChainId)),
  );
  for (const [i, signed] of messages.entries()) {
    const key = keys[i];
    if (key === null || key === undefined || !delegatedAddressFromPublicKey(key).equals(signed.message.from)) {
      throw new Error(`transaction ${i}: invalid delegated signature`);
    }
  }
}

export interface LedgerRun {
  readonly seconds: number;
  readonly transfers: number;
  /** Token balances of the recipients asked for, read with a `balanceOf` message after the transfers. */
  readonly balances: bigint[];
}

/**
 * Applies the workload on a fresh database: funding and deployment untimed, then the transfers in
 * tipsets of `perTipset` (two blocks each), signatures checked, timed after the first `warmup` tipsets.
 */
export async function runOnLedgerVm(
  workload: TransferWorkload,
  perTipset: number,
  warmup: number,
  balancesOf: readonly number[],
): Promise<LedgerRun> {
  const chainId = params.eip155ChainId;
  const toMessage = (raw: string) => parseRawEthTransaction(fromHex(raw.slice(2)), chainId).signed;
  const deploy = toMessage(workload.deploy);
  const sender = deploy.message.from;
  const fundingMessage = {
    from: funder,
    to: sender,
    nonce: 0n,
    value: 10_000n * FIL,
    gasLimit: 10_000_000n,
    gasFeeCap: 1_000_000n,
    gasPremium: 1000n,
    method: 0n,
    params: new Uint8Array(0),
  };
  const funding: SignedMessage = {
    message: fundingMessage,
    signature: {
      type: SignatureType.Secp256k1,
      data: secp256k1.sign(funderKey, messageSigningBytes(fundingMessage)),
    },
  };
  const transfers = workload.transfers.map(toMessage);
  const tipsets: SignedMessage[][] = [];
  for (let start = 0; start < transfers.length; start += perTipset)
    tipsets.push(transfers.slice(start, start + perTipset));

  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-evm-'));
  const database = LedgerDatabase.open(join(dir, 'bench.db'));
  try {
    const genesis = buildGenesis(database.blockstore, template, params);
    const executor = new TipsetExecutor(database.blockstore);
    let root = genesis.stateRoot;
    let baseFee = params.initialBaseFee;
    let epoch = 0n;
    const apply = async (messages: readonly SignedMessage[]) => {
      epoch += 1n;
      const result = await applyBenchTipset(executor, root, epoch, baseFee, messages, 2);
      const failed = result.receipts.findIndex((receipt) => receipt.exitCode !== 0n);
      if (failed >= 0) throw new Error(`epoch ${epoch}: message ${failed} exited ${result.receipts[failed]!.exitCode}`);
      root = result.stateRoot;
      baseFee = result.nextBaseFee;
      return result;
    };
    await apply([funding]);
    await checkDelegatedSignatures([deploy]);
    await apply([deploy]);

    let started = performance.now();
    let timed = 0;
    let checked = checkDelegatedSignatures(tipsets[0]!);
    for (const [index, messages] of tipsets.entries()) {
      await checked;
      if (index + 1 < tipsets.length) checked = checkDelegatedSignatures(tipsets[index + 1]!);
      await apply(messages);
      if (index + 1 === warmup) started = performance.now();
      else if (index >= warmup) timed += messages.length;
    }
    const seconds = (performance.now() - started) / 1000;

    // The balances, read by the sender's next transactions (unsigned: only their receipts matter).
    const wallet = new Wallet(SENDER_KEY);
    const reads = await Promise.all(
      balancesOf.map(async (i, k) =>
        toMessage(
          await wallet.signTransaction({
            chainId,
            type: 2,
            nonce: workload.transfers.length + 1 + k,
            gasLimit: TRANSFER_GAS_LIMIT,
            maxFeePerGas: MAX_FEE_PER_GAS,
            maxPriorityFeePerGas: MAX_PRIORITY_FEE_PER_GAS,
            to: workload.token,
            data: workload.tokenAbi.encodeFunctionData('balanceOf', [workload.recipients[i]]),
          }),
        ),
      ),
    );
    const read = await apply(reads);
    const balances = read.receipts.map((receipt) =>
      BigInt(`0x${toHex(readBytes(decodeChainCbor(receipt.return, 'return'), 'return')) || '0'}`),
    );
    return { seconds, transfers: timed, balances };
  } finally {
    database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- Hardhat ----------------------------------------------------------------------------------

interface Provider {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

/** Hardhat's in-process network with bench/hardhat.config.cjs (loaded once per process). */
function hardhatProvider(): Provider {
  const require = createRequire(import.meta.url);
  process.env.HARDHAT_CONFIG = fileURLToPath(new URL('./hardhat.config.cjs', import.meta.url));
  return (require('hardhat') as { network: { provider: Provider } }).network.provider;
}

export interface HardhatRun {
  readonly seconds: number;
  readonly transfers: number;
  readonly balances: bigint[];
}

/** On a fresh Hardhat chain: the deployment, then the transfers (timed after the first `warmup`), each mined at once. */
export async function runOnHardhat(
  workload: TransferWorkload,
  warmup: number,
  balancesOf: readonly number[],
): Promise<HardhatRun> {
  const provider = hardhatProvider();
  await provider.request({ method: 'hardhat_reset', params: [] }); // a fresh chain for each run
  const send = async (raw: string) => {
    const hash = (await provider.request({ method: 'eth_sendRawTransaction', params: [raw] })) as string;
    const receipt = (await provider.request({ method: 'eth_getTransactionReceipt', params: [hash] })) as {
      status: string;
    } | null;
    if (receipt?.status !== '0x1') throw new Error(`hardhat: transaction ${hash} failed: ${JSON.stringify(receipt)}`);
  };
  await send(workload.deploy);
  let started = performance.now();
  for (const [index, raw] of workload.transfers.entries()) {
    if (index === warmup) started = performance.now();
    await send(raw);
  }
  const seconds = (performance.now() - started) / 1000;
  const balances = await Promise.all(
    balancesOf.map(async (i) =>
      BigInt(
        (await provider.request({
          method: 'eth_call',
          params: [
            {
              to: workload.token,
              data: workload.tokenAbi.encodeFunctionData('balanceOf', [workload.recipients[i]]),
            },
            'latest',
          ],
        })) as string,
      ),
    ),
  );
  return { seconds, transfers: workload.transfers.length - warmup, balances };
}
