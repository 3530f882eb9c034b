/**
 * `ledger send` and `ledger mpool pending|replace` against a real mining devnet (the CLI program
 * run in process, talking to the node over HTTP through LEDGER_API_INFO), plus the message `send`
 * builds for Ethereum recipients.
 */
import * as dagCbor from '@ipld/dag-cbor';
import { afterAll, beforeAll, describe, expect, jest, test } from '@jest/globals';
import { buildSendMessage, parseSendTarget } from '../../src/cli/commands/send.js';
import { buildProgram } from '../../src/cli/main.js';
import { RpcClient } from '../../src/rpc/client.js';
import { Address, addressFromEthAddress, INVOKE_CONTRACT_METHOD } from '../../src/types/index.js';
import { fromBase64 } from '../../src/utils/bytes.js';
import type { Devnet } from '../helpers/devnet.js';
import { multisigExecJson } from '../helpers/multisig-exec.js';
import { startPairedDevnet } from '../helpers/wallet-pair.js';

let devnet: Devnet;
let from: string;
let to: string;

beforeAll(async () => {
  ({ devnet, from, to } = await startPairedDevnet());
  process.env.LEDGER_API_INFO = `${devnet.token}:${devnet.node.apiAddress}`;
}, 120_000);

afterAll(async () => {
  delete process.env.LEDGER_API_INFO;
  await devnet?.stop();
});

/** Runs `ledger …args` and returns what it wrote to stdout. */
async function ledger(...args: string[]): Promise<string> {
  let out = '';
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    out += String(chunk);
    return true;
  });
  try {
    await buildProgram()
      .exitOverride()
      .parseAsync(['node', 'ledger', ...args]);
  } finally {
    write.mockRestore();
  }
  return out;
}

const CID_LINE = /^(bafy2bza[a-z2-7]+)$/m;

describe('ledger send', () => {
  test('sends 1.5 FIL with estimated gas and prints Lotus’s lines then the CID', async () => {
    const out = await ledger('send', to, '1.5');
    const lines = out.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `Sending message from: ${from}`,
      `Sending message to: ${to}`,
      'Using Method: 0',
    ]);
    expect(lines[3]).toMatch(CID_LINE);
    const pending = await devnet.rpc<Array<{ CID: { '/': string }; Message: { Value: string } }>>('MpoolPending', [
      null,
    ]);
    const sent = pending.find((m) => m.CID['/'] === lines[3]);
    // Mined already, or still pending with the right value.
    if (sent !== undefined) expect(sent.Message.Value).toBe('1500000000000000000');
  });

  test('a stuck message (fee cap below the base fee) is listed, then replaced with --auto', async () => {
    const nonce = await devnet.rpc<number>('MpoolGetNonce', [from]);
    const out = await ledger(
      'send',
      '--nonce',
      String(nonce),
      '--gas-premium',
      '100',
      '--gas-feecap',
      '150',
      '--gas-limit',
      '3000000',
      to,
      '0.25',
    );
    const stuck = CID_LINE.exec(out)?.[1] as string;
    expect(stuck).toBeDefined();
    expect((await ledger('mpool', 'pending', '--cids')).split('\n')).toContain(stuck);
    const local = await ledger('mpool', 'pending', '--local');
    expect(local).toContain(`"CID": {\n    "/": "${stuck}"\n  }`);
    expect(await ledger('mpool', 'pending', '--cids', '--from', to)).toBe('');

    const replaced = await ledger('mpool', 'replace', '--auto', from, String(nonce));
    const match = /^new message cid: {2}(bafy2bza[a-z2-7]+)\n$/.exec(replaced);
    expect(match).not.toBeNull();
    const cids = (await ledger('mpool', 'pending', '--cids')).split('\n');
    expect(cids).toContain(match![1]);
    expect(cids).not.toContain(stuck);
  });

  test('a 0x recipient gets method 3844450837 (InvokeContract) and the transfer is accepted', async () => {
    const out = await ledger('send', '0x2222222222222222222222222222222222222222', '1');
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^Sending message to: t410f/);
    expect(lines[2]).toBe('Using Method: 3844450837');
    expect(lines[3]).toMatch(CID_LINE);
  });

  test(
    '--params-json: a multisig created through init Exec, then a transfer proposed to it, both mined',
    async () => {
      // Blocks carry real winning PoSt: a wait can outlive the helper client's 60 s limit.
      const waiter = new RpcClient({ url: devnet.url, token: devnet.token, timeoutMs: 10 * 60_000 });
      const receiptOf = async (out: string) => {
        const cid = CID_LINE.exec(out)?.[1] as string;
        expect(cid).toBeDefined();
        const found = (await waiter.request('Ledger.StateWaitMsg', [{ '/': cid }, 1, -1, true])) as {
          Receipt: { ExitCode: number; Return: string | null };
        };
        expect(found.Receipt.ExitCode).toBe(0);
        return dagCbor.decode(fromBase64(found.Receipt.Return as string)) as unknown[];
      };
      const { exec } = multisigExecJson(Address.fromString(from));
      const created = await ledger('send', '--method', '2', '--params-json', exec, 't01', '0.001');
      expect(created).toContain('Using Method: 2\n');
      const [idAddress] = (await receiptOf(created)) as [Uint8Array];
      const multisig = Address.fromBytes(idAddress).toString('t');

      const before = BigInt(await devnet.rpc<string>('WalletBalance', [to]));
      const propose = JSON.stringify({ To: to, Value: '1000', Method: 0, Params: null });
      const proposed = await ledger('send', '--method', '2', '--params-json', propose, multisig, '0');
      // ProposeReturn [TxnID, Applied, Code, Ret]: one approval of one needed, so it ran at once.
      const [, applied, code] = await receiptOf(proposed);
      expect(applied).toBe(true);
      expect(code).toBe(0);
      expect(BigInt(await devnet.rpc<string>('WalletBalance', [to])) - before).toBe(1000n);

      await expect(
        ledger('send', '--method', '2', '--params-json', '{"To": "t01", "Valu": "1"}', multisig, '0'),
      ).rejects.toThrow('--params-json: ProposeParams has no field Valu');
    },
    20 * 60_000,
  );

  test('refuses a bad amount and --params-json with an Ethereum recipient', async () => {
    await expect(ledger('send', to, '1.5.2')).rejects.toThrow(/failed to parse amount/);
    await expect(
      ledger('send', '--params-json', '{}', '0x1111111111111111111111111111111111111111', '1'),
    ).rejects.toThrow('messages to Ethereum addresses may not specify json params');
  });
});

describe('Ethereum recipients', () => {
  const sender = Address.fromString('t1d7x4euqwtlk2bqzhclr6gubkufezgddkqftsnky');

  test('0x and f410f recipients use InvokeContract and wrap hex params as CBOR bytes', () => {
    const eth = '0x1111111111111111111111111111111111111111';
    const f410 = addressFromEthAddress(eth).toString();
    expect(f410.startsWith('t410f')).toBe(true);
    for (const text of [eth, f410]) {
      const target = parseSendTarget(text);
      expect(target.eth).toBe(true);
      const message = buildSendMessage(sender, target, 10n, { paramsHex: 'abcd' });
      expect(message.method).toBe(INVOKE_CONTRACT_METHOD);
      expect([...message.params]).toEqual([0x42, 0xab, 0xcd]);
    }
    expect(() =>
      buildSendMessage(sender, parseSendTarget('0x1111111111111111111111111111111111111111'), 1n, { method: 2n }),
    ).toThrow('messages to Ethereum addresses may not specify a method number');
  });

  test('other recipients keep --method and raw --params-hex', () => {
    const message = buildSendMessage(sender, parseSendTarget('t01000'), 0n, { method: 2n, paramsHex: '0x82' });
    expect(message.method).toBe(2n);
    expect([...message.params]).toEqual([0x82]);
  });
});
