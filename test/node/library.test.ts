/**
 * The node as a library, through the package's entry point (src/index.ts) as a user imports it:
 * `startDevnet()` answers `Ledger.ChainHead` over plain HTTP at `rpcUrl`, hands out the accounts'
 * keys and the miner, refuses bad options by name, and `stop()` closes the port and removes the
 * temporary repo; `createNode()` starts a node without a chain.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, startDevnet } from '../../src/index.js';

async function rpc(url: string, method: string, params: unknown[] = [], token?: string): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Whether a fresh listener can take `port` on 127.0.0.1, i.e. nothing listens there any more. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

test('startDevnet serves Ledger.ChainHead at rpcUrl; stop() frees the port and removes the temporary repo', async () => {
  const devnet = await startDevnet({ accounts: 2, balance: 500n * 10n ** 18n, mine: false });
  let stopped = false;
  try {
    expect(devnet.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/rpc\/v1$/);
    const head = (await rpc(devnet.rpcUrl, 'Ledger.ChainHead')) as { Height: number; Cids: unknown[] };
    expect(head.Height).toBe(0);
    expect(head.Cids).toHaveLength(1);

    expect(devnet.accounts).toHaveLength(2);
    for (const account of devnet.accounts) {
      expect(account.address).toMatch(/^t1/);
      expect(account.balance).toBe(500n * 10n ** 18n);
      // The hex Lotus KeyInfo `ledger devnet` prints.
      const keyInfo = JSON.parse(Buffer.from(account.privateKey, 'hex').toString('utf8'));
      expect(keyInfo.Type).toBe('secp256k1');
      expect(await rpc(devnet.rpcUrl, 'Ledger.WalletBalance', [account.address])).toBe(String(500n * 10n ** 18n));
    }
    expect(devnet.miner.address).toBe('t01000');
    expect(devnet.miner.worker).toMatch(/^t3/);
    expect(devnet.blockTime).toBe(4);
    // The token is an admin token: a sign-level call succeeds with it, and is refused without it.
    const signing = [devnet.accounts[0]?.address, Buffer.from('hello').toString('base64')];
    await expect(rpc(devnet.rpcUrl, 'Ledger.WalletSign', signing)).rejects.toThrow(/permission|token|auth/i);
    expect(await rpc(devnet.rpcUrl, 'Ledger.WalletSign', signing, devnet.token)).toMatchObject({ Type: 1 });

    const port = Number(new URL(devnet.rpcUrl).port);
    const stopping = devnet.stop();
    expect(devnet.stop()).toBe(stopping);
    await stopping;
    stopped = true;
    expect(await portIsFree(port)).toBe(true);
    expect(existsSync(devnet.repo)).toBe(false);
    await expect(rpc(devnet.rpcUrl, 'Ledger.ChainHead')).rejects.toThrow();
  } finally {
    if (!stopped) await devnet.stop();
  }
}, 120_000);

test('startDevnet mines by default; a given repo is kept and resumed', async () => {
  const repo = mkdtempSync(join(tmpdir(), 'ledger-library-'));
  try {
    const devnet = await startDevnet({ repo, blockTime: 1, accounts: 1 });
    let height = 0;
    try {
      const deadline = Date.now() + 90_000;
      while (height < 1 && Date.now() < deadline) {
        height = ((await rpc(devnet.rpcUrl, 'Ledger.ChainHead')) as { Height: number }).Height;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(height).toBeGreaterThanOrEqual(1);
    } finally {
      await devnet.stop();
    }
    expect(existsSync(join(repo, 'devnet.json'))).toBe(true);

    const again = await startDevnet({ repo, mine: false });
    try {
      expect(again.blockTime).toBe(1);
      const head = (await rpc(again.rpcUrl, 'Ledger.ChainHead')) as { Height: number };
      expect(head.Height).toBeGreaterThanOrEqual(height);
    } finally {
      await again.stop();
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}, 150_000);

test('bad options are refused by name before anything starts', async () => {
  await expect(startDevnet({ blockTime: 1.5 })).rejects.toThrow(
    'blockTime: expected an integer from 1 to 3600, got 1.5',
  );
  await expect(startDevnet({ accounts: 0 })).rejects.toThrow('accounts: expected an integer from 1 to 1000, got 0');
  await expect(startDevnet({ balance: 5 as unknown as bigint })).rejects.toThrow(
    /^balance: expected a positive bigint/,
  );
  await expect(startDevnet({ port: 70000 })).rejects.toThrow('port: expected an integer from 0 to 65535, got 70000');
  await expect(createNode({ network: 'calibnet' as 'devnet' })).rejects.toThrow(
    'network: expected one of mainnet, devnet, got calibnet',
  );
  await expect(createNode({ logLevel: 'loud' as 'info' })).rejects.toThrow(/^logLevel: expected one of trace, /);
});

test('createNode starts a node without a chain that answers Version; stop() removes its temporary repo', async () => {
  const node = await createNode({ apiPort: 0, p2p: { enabled: false } });
  try {
    expect(await rpc(node.rpcUrl, 'Ledger.Version')).toMatchObject({ Version: expect.stringContaining('+mainnet') });
    expect(node.p2pAddresses).toEqual([]);
    expect(existsSync(node.repo)).toBe(true);
  } finally {
    await node.stop();
  }
  expect(existsSync(node.repo)).toBe(false);
});
