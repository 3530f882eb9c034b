/** The composition root on a temporary repo: files and modes, the api file, the lock, restarts, config. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import {
  ConfigError,
  DEFAULT_CONFIG_TOML,
  defaultRepoPath,
  LedgerNode,
  parseConfig,
  parseDurationMs,
  RepoLockedError,
} from '../../src/node/index.js';
import { type LedgerApi, ledgerApi, RpcClient, rpcUrl } from '../../src/rpc/index.js';
import { setDefaultNetwork } from '../../src/types/index.js';

const silent = pino({ level: 'silent' });
let repoPath: string;

beforeEach(() => {
  repoPath = mkdtempSync(join(tmpdir(), 'ledger-node-'));
});
afterEach(() => {
  setDefaultNetwork('f');
  rmSync(repoPath, { recursive: true, force: true });
});

function start(overrides = {}) {
  return LedgerNode.start({ repoPath, logger: silent, overrides: { apiPort: 0, network: 'devnet', ...overrides } });
}

function apiOf(node: LedgerNode, token?: string): LedgerApi {
  return ledgerApi(new RpcClient({ url: rpcUrl(node.apiAddress, 1), token }));
}

const mode = (path: string) => statSync(path).mode & 0o777;

test('a first start initialises the repo: config, keystore with the API secret, 0600 admin token, api file', async () => {
  const node = await start();
  try {
    expect(readFileSync(join(repoPath, 'config.toml'), 'utf8')).toBe(DEFAULT_CONFIG_TOML);
    expect(mode(join(repoPath, 'keystore'))).toBe(0o700);
    expect(mode(join(repoPath, 'keystore', 'MF2XI2BNNJ3XILLQOJUXMYLUMU'))).toBe(0o600);
    expect(mode(join(repoPath, 'token'))).toBe(0o600);
    const api = readFileSync(join(repoPath, 'api'), 'utf8');
    expect(api).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/\d+\/http$/);
    expect(api).toBe(node.apiAddress);

    const token = readFileSync(join(repoPath, 'token'), 'utf8');
    const client = apiOf(node, token);
    expect(await client.AuthVerify(token)).toEqual(['read', 'write', 'sign', 'admin']);
    expect(await client.Version()).toMatchObject({ Version: '0.1.0+devnet', BlockDelay: 4 });
    expect(String(await client.WalletNew('bls'))).toMatch(/^t3/);
  } finally {
    await node.stop();
  }
  expect(existsSync(join(repoPath, 'api'))).toBe(false);
  expect(existsSync(join(repoPath, 'repo.lock'))).toBe(false);
});

test('a second node on the same repo is refused while the first runs', async () => {
  const node = await start();
  try {
    await expect(start()).rejects.toThrow(RepoLockedError);
    await expect(start()).rejects.toThrow(`repo ${repoPath} is in use by process ${process.pid}`);
  } finally {
    await node.stop();
  }
});

test('a stale lock of a dead process is taken over', async () => {
  writeFileSync(join(repoPath, 'repo.lock'), '999999999');
  const node = await start();
  await node.stop();
});

test('a restart keeps the secret: old tokens still work; a missing token file is written again', async () => {
  const first = await start();
  const token = readFileSync(join(repoPath, 'token'), 'utf8');
  await first.stop();
  rmSync(join(repoPath, 'token'));
  const second = await start();
  try {
    expect(readFileSync(join(repoPath, 'token'), 'utf8')).toBe(token);
    expect(await apiOf(second, token).AuthVerify(token)).toHaveLength(4);
  } finally {
    await second.stop();
  }
});

test('config.toml settings apply, and the command line overrides them', async () => {
  rmSync(repoPath, { recursive: true });
  const node0 = await LedgerNode.start({ repoPath, logger: silent, overrides: { apiPort: 0 } });
  await node0.stop();
  writeFileSync(
    join(repoPath, 'config.toml'),
    '[API]\nListenAddress = "/ip4/127.0.0.1/tcp/0/http"\nMaxBatchSize = 2\n[Chain]\nNetwork = "devnet"\nBlockDelaySecs = 6\n',
  );
  const node = await LedgerNode.start({ repoPath, logger: silent });
  try {
    expect(await apiOf(node).Version()).toMatchObject({ Version: '0.1.0+devnet', BlockDelay: 6 });
    // The API limits reach the server: a batch of 3 is over MaxBatchSize = 2.
    const version = { jsonrpc: '2.0', method: 'Ledger.Version', params: [], id: 1 };
    const batch = await fetch(rpcUrl(node.apiAddress, 1), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([version, version, version]),
    });
    expect(((await batch.json()) as { error: { message: string } }).error.message).toContain(
      'batch of 3 calls exceeds the limit of 2 (raise API.MaxBatchSize',
    );
  } finally {
    await node.stop();
  }
  const mainnet = await start({ network: 'mainnet' });
  try {
    expect(await apiOf(mainnet).Version()).toMatchObject({ Version: '0.1.0+mainnet', BlockDelay: 30 });
  } finally {
    await mainnet.stop();
  }
});

test('a port in use is a clear error and leaves the repo unlocked', async () => {
  const first = await start();
  const port = Number(first.apiAddress.split('/')[4]);
  const other = mkdtempSync(join(tmpdir(), 'ledger-node-'));
  try {
    await expect(LedgerNode.start({ repoPath: other, logger: silent, overrides: { apiPort: port } })).rejects.toThrow(
      `cannot listen on 127.0.0.1:${port} (EADDRINUSE)`,
    );
    expect(existsSync(join(other, 'repo.lock'))).toBe(false);
  } finally {
    await first.stop();
    rmSync(other, { recursive: true, force: true });
  }
});

describe('config.toml', () => {
  test('the default file parses to the defaults', () => {
    expect(parseConfig(DEFAULT_CONFIG_TOML, 'config.toml')).toEqual(parseConfig('', 'config.toml'));
    expect(parseConfig('', 'config.toml')).toEqual({
      api: {
        listenAddress: '/ip4/127.0.0.1/tcp/1234/http',
        maxRequestSize: 10 * 1024 * 1024,
        maxResponseSize: 64 * 1024 * 1024,
        maxBatchSize: 100,
        maxConcurrentExpensiveCalls: 4,
        maxConcurrentExpensiveCallsPerConnection: 2,
        expensiveCallQueueTimeoutMs: 10_000,
      },
      chain: { network: 'mainnet', blockDelaySecs: 30 },
      logging: { level: 'info' },
      chainstore: { prune: { enable: undefined, window: 2000, intervalEpochs: 1000 } },
    });
  });

  test.each([
    [
      '[API]\nListenAdress = "x"',
      'config.toml: API.ListenAdress: unknown key (known: ListenAddress, MaxRequestSize, MaxResponseSize, MaxBatchSize, MaxConcurrentExpensiveCalls, MaxConcurrentExpensiveCallsPerConnection, ExpensiveCallQueueTimeout)',
    ],
    ['[API]\nMaxBatchSize = 0', 'config.toml: API.MaxBatchSize: expected an integer of at least 1'],
    ['[API]\nMaxResponseSize = 10', 'config.toml: API.MaxResponseSize: expected an integer of at least 1024'],
    [
      '[API]\nMaxConcurrentExpensiveCalls = -1',
      'config.toml: API.MaxConcurrentExpensiveCalls: expected an integer of at least 1',
    ],
    [
      '[API]\nMaxConcurrentExpensiveCalls = 2\nMaxConcurrentExpensiveCallsPerConnection = 3',
      'config.toml: API.MaxConcurrentExpensiveCallsPerConnection: 3 is more than API.MaxConcurrentExpensiveCalls (2)',
    ],
    ['[API]\nExpensiveCallQueueTimeout = 10', 'config.toml: API.ExpensiveCallQueueTimeout: expected a duration'],
    [
      '[API]\nExpensiveCallQueueTimeout = "10 seconds"',
      'config.toml: API.ExpensiveCallQueueTimeout: expected a duration',
    ],
    ['[Api]\n', 'config.toml: Api: unknown section (known: API, Chain, Logging, Chainstore)'],
    ['[Chainstore]\nEnableSplitstore = true', 'config.toml: Chainstore.EnableSplitstore: unknown key (known: Prune)'],
    ['[Chainstore.Prune]\nEnable = "yes"', 'config.toml: Chainstore.Prune.Enable: expected true or false'],
    ['[Chainstore.Prune]\nWindow = 0', 'config.toml: Chainstore.Prune.Window: expected an integer of at least 1'],
    [
      '[Chainstore.Prune]\nInterval = 5',
      'config.toml: Chainstore.Prune.Interval: unknown key (known: Enable, Window, IntervalEpochs)',
    ],
    ['[API]\nMaxRequestSize = "big"', 'config.toml: API.MaxRequestSize: expected an integer of at least 1024'],
    ['[API]\nListenAddress = "127.0.0.1:1234"', 'config.toml: API.ListenAddress: invalid API address'],
    ['[Chain]\nNetwork = "calibnet"', 'config.toml: Chain.Network: expected one of mainnet, devnet'],
    ['[Logging]\nLevel = "loud"', 'config.toml: Logging.Level: expected one of trace'],
    ['[API', 'config.toml: Invalid TOML document'],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseConfig(text, 'config.toml')).toThrow(ConfigError);
    expect(() => parseConfig(text, 'config.toml')).toThrow(message);
  });

  test('[Chainstore.Prune] turns pruning on or off and sets its window and interval', () => {
    const config = parseConfig('[Chainstore.Prune]\nEnable = true\nWindow = 500\nIntervalEpochs = 100', 'config.toml');
    expect(config.chainstore.prune).toEqual({ enable: true, window: 500, intervalEpochs: 100 });
    expect(parseConfig('[Chainstore.Prune]\nEnable = false', 'config.toml').chainstore.prune.enable).toBe(false);
  });

  test('the API limits are read from [API], durations in Go’s notation', () => {
    const config = parseConfig(
      '[API]\nMaxResponseSize = 2048\nMaxBatchSize = 5\nMaxConcurrentExpensiveCalls = 3\n' +
        'MaxConcurrentExpensiveCallsPerConnection = 1\nExpensiveCallQueueTimeout = "1m30s"',
      'config.toml',
    );
    expect(config.api).toMatchObject({
      maxResponseSize: 2048,
      maxBatchSize: 5,
      maxConcurrentExpensiveCalls: 3,
      maxConcurrentExpensiveCallsPerConnection: 1,
      expensiveCallQueueTimeoutMs: 90_000,
    });
    // A total below the per-connection default lowers the per-connection one with it.
    expect(parseConfig('[API]\nMaxConcurrentExpensiveCalls = 1', 'config.toml').api).toMatchObject({
      maxConcurrentExpensiveCalls: 1,
      maxConcurrentExpensiveCallsPerConnection: 1,
    });
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('1.5s')).toBe(1500);
    expect(parseDurationMs('0')).toBe(0);
    expect(parseDurationMs('10')).toBeUndefined();
    expect(parseDurationMs('')).toBeUndefined();
  });
});

test('the repo is $LEDGER_PATH, with ~ expanded, else ~/.ledger', () => {
  expect(defaultRepoPath({ LEDGER_PATH: '/srv/ledger' })).toBe('/srv/ledger');
  expect(defaultRepoPath({ LEDGER_PATH: '~/x' })).toMatch(/\/x$/);
  expect(defaultRepoPath({ LEDGER_PATH: '~/x' }).startsWith('~')).toBe(false);
  expect(defaultRepoPath({})).toMatch(/\/\.ledger$/);
});
