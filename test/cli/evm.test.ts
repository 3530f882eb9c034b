/**
 * `ledger evm deploy|invoke|call` and `ledger send` to Ethereum addresses, through the CLI's
 * `main()` in this process against a real RPC server over a real chain (SQLite chain store,
 * executed tipsets, a message pool whose MpoolPushMessage signs with the node wallet holding
 * alice's key, the EVM actor running solc-compiled Solidity). The test mines what the pool holds
 * while the command waits for its message, as a devnet would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { AbiCoder, Interface } from 'ethers';
import { Address, addressFromEthAddress, ethAddressFromAddress, setDefaultNetwork } from '../../src/types/index.js';
import { toHex } from '../../src/utils/bytes.js';
import { closeEvmWorker } from '../../src/vm/evm/interpreter.js';
import { KeyType } from '../../src/wallet/index.js';
import { type ChainServer, startChainServer } from '../helpers/chain-server.js';
import { type CliRun, runCli } from '../helpers/cli-in-process.js';
import { FIL } from '../helpers/genesis.js';
import { keys } from '../helpers/keys.js';
import { compileVault } from '../helpers/vault-contract.js';

const { alice } = keys;
const vault = compileVault();
const abi = new Interface(vault.abi as never);
const word = (value: bigint) => AbiCoder.defaultAbiCoder().encode(['uint256'], [value]);

// biome-ignore lint/suspicious/noExplicitAny: Lotus JSON answers are walked field by field in assertions.
type Json = Record<string, any>;

let s: ChainServer;
let apiInfo: string;
let directory: string;

beforeAll(async () => {
  s = await startChainServer({ mpool: true, eth: true });
  s.wallet.import({ type: KeyType.Secp256k1, privateKey: alice.privateKey });
  s.wallet.setDefault(alice.address);
  apiInfo = `${await s.tokens.create(['read', 'write', 'sign', 'admin'])}:${s.url().replace(/\/rpc\/v1$/, '')}`;
  directory = mkdtempSync(join(tmpdir(), 'ledger-evm-cli-'));
});
afterAll(async () => {
  await s.close();
  closeEvmWorker();
  rmSync(directory, { recursive: true, force: true });
  setDefaultNetwork('f');
});

/**
 * Runs `ledger <args>` while mining: each pooled message is included in a tipset and executed by
 * the next, so that the command's wait for its message ends.
 */
async function ledger(...args: string[]): Promise<CliRun> {
  let done = false;
  const mining = (async () => {
    while (!done) {
      const pending = s.mpool!.pool.pending();
      if (pending.length > 0) {
        await s.t.mine([{ secp: pending }]);
        await s.t.mine();
        await s.t.mine();
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    return await runCli(apiInfo, args);
  } finally {
    done = true;
    await mining;
  }
}

/** Includes every pooled message in a tipset, then mines the tipset that executes them. */
async function mineThePool(): Promise<void> {
  await s.t.mine([{ secp: s.mpool!.pool.pending() }]);
  await s.t.mine();
}

async function rpc<T = Json>(method: string, params: unknown[]): Promise<T> {
  const response = await fetch(s.url(1), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const answer = (await response.json()) as Json;
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result as T;
}

/** The lines `lotus evm deploy` prints, in order, with the values read back. */
function deployedFrom(stdout: string): { eth: string; f4: string; id: string } {
  const lines = stdout.trimEnd().split('\n');
  const labels = lines.map((line) => line.split(':')[0]);
  expect(labels).toEqual([
    'sending message...',
    'Message CID',
    'waiting for message to execute...',
    'Exit Code',
    'Gas Used',
    'Actor ID',
    'ID Address',
    'Robust Address',
    'Eth Address',
    'f4 Address',
  ]);
  const value = (label: string) => lines.find((line) => line.startsWith(`${label}: `))!.slice(label.length + 2);
  expect(value('Exit Code')).toBe('0');
  expect(value('ID Address')).toBe(`t0${value('Actor ID')}`);
  expect(value('Robust Address')).toMatch(/^t2[a-z2-7]+$/);
  return { eth: value('Eth Address'), f4: value('f4 Address'), id: value('ID Address') };
}

let contract: { eth: string; f4: string; id: string };

describe('ledger evm', () => {
  test('deploy --hex prints the new actor, its f4 and 0x addresses; the f4 is an EVM actor with the code', async () => {
    const file = join(directory, 'Vault.bin');
    writeFileSync(file, `${toHex(vault.bytecode)}\n`);
    const run = await ledger('evm', 'deploy', '--hex', file);
    expect(run.stderr).toBe('');
    contract = deployedFrom(run.stdout);
    expect(contract.eth).toMatch(/^0x[0-9a-f]{40}$/);
    expect(contract.f4).toBe(addressFromEthAddress(contract.eth).toString());
    expect(await rpc<string>('Filecoin.StateLookupID', [contract.f4, null])).toBe(contract.id);
    expect((await rpc<string>('eth_getCode', [contract.eth, 'latest'])).length).toBeGreaterThan(100);
  });

  test('deploy of a binary file works alike', async () => {
    const file = join(directory, 'Vault.raw');
    writeFileSync(file, vault.bytecode);
    const run = await ledger('evm', 'deploy', '--from', alice.address.toString(), file);
    expect(run.stderr).toBe('');
    expect(deployedFrom(run.stdout).eth).not.toBe(contract.eth);
  });

  test('invoke sends InvokeContract and prints the gas used and the returned hex; call reads the state', async () => {
    const run = await ledger('evm', 'invoke', contract.eth, abi.encodeFunctionData('store', [21n]));
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'sending message...',
      expect.stringMatching(/^Message CID: bafy2bza/),
      'waiting for message to execute...',
    ]);
    expect(lines[3]).toMatch(/^Gas used: [1-9]\d*$/);
    expect(lines[4]).toBe(word(42n).slice(2));

    const called = await ledger('evm', 'call', contract.f4, abi.encodeFunctionData('stored'));
    expect(called).toEqual({ stdout: `Result: ${word(21n)}\n`, stderr: '', exitCode: undefined });
    const caller = addressFromEthAddress(`0x${'12'.repeat(20)}`).toString();
    const asCaller = await ledger('evm', 'call', '--from', caller, contract.id, abi.encodeFunctionData('stored'));
    expect(asCaller).toEqual({ stdout: `Result: ${word(21n)}\n`, stderr: '', exitCode: undefined });
  });

  test('invoke --value moves FIL into the contract', async () => {
    const before = BigInt(await rpc<string>('Filecoin.WalletBalance', [contract.f4]));
    const run = await ledger('evm', 'invoke', '--value', '2', contract.id, '0x');
    expect(run.stderr).toBe('');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('OK');
    expect(BigInt(await rpc<string>('Filecoin.WalletBalance', [contract.f4]))).toBe(before + 2n * FIL);
  });

  test('errors name what was wrong: bad hex, no contract, a revert with its reason', async () => {
    const failing = abi.encodeFunctionData('fail');
    const cases: Array<[string[], string]> = [
      [['evm', 'invoke', contract.eth, '0x12345'], 'calldata is not hex'],
      [['evm', 'call', contract.eth, 'zz'], 'calldata is not hex'],
      [['evm', 'call', '0x1234', '0x'], '"0x1234" is not a contract address'],
      [
        ['evm', 'invoke', `0x${'11'.repeat(20)}`, failing],
        `no contract at ${addressFromEthAddress(`0x${'11'.repeat(20)}`)}`,
      ],
      [['evm', 'call', alice.address.toString(), failing], `no contract at ${alice.address}: its actor is account`],
      [
        ['evm', 'call', '--from', alice.address.toString(), contract.eth, '0x'],
        `--from "${alice.address}" is no Ethereum account`,
      ],
      [['evm', 'invoke', contract.eth, failing], 'contract reverted (exit code 33): vault: nope'],
      [['evm', 'call', contract.eth, failing], 'execution reverted: vault: nope'],
      [['evm', 'deploy', join(directory, 'missing.bin')], 'failed to read contract'],
    ];
    for (const [args, message] of cases) {
      const run = await ledger(...args);
      expect({ args, stderr: run.stderr, exitCode: run.exitCode }).toEqual({
        args,
        stderr: expect.stringContaining(message),
        exitCode: 1,
      });
    }
  });
});

describe('ledger send to Ethereum addresses', () => {
  test('to a contract: InvokeContract, and the contract receives the value', async () => {
    const before = BigInt(await rpc<string>('Filecoin.WalletBalance', [contract.f4]));
    const run = await ledger('send', contract.eth, '1');
    expect(run.stdout.split('\n').slice(0, 3)).toEqual([
      `Sending message from: ${alice.address}`,
      `Sending message to: ${contract.f4}`,
      'Using Method: 3844450837',
    ]);
    await mineThePool();
    expect(BigInt(await rpc<string>('Filecoin.WalletBalance', [contract.f4]))).toBe(before + FIL);
  });

  test('to a 0x address with no contract: InvokeContract too, as Lotus sends; the placeholder the transfer creates accepts it and keeps the funds', async () => {
    const fresh = `0x${'ab'.repeat(20)}`;
    const f410 = addressFromEthAddress(fresh).toString();
    const run = await ledger('send', fresh, '3');
    expect(run.stdout.split('\n').slice(0, 3)).toEqual([
      `Sending message from: ${alice.address}`,
      `Sending message to: ${f410}`,
      'Using Method: 3844450837',
    ]);
    await mineThePool();
    expect(await rpc<string>('Filecoin.WalletBalance', [f410])).toBe((3n * FIL).toString());
    expect(ethAddressFromAddress(Address.fromString(f410))).toBe(fresh);
  });
});
