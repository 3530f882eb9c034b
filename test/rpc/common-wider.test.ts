/**
 * Session, StartTime, Shutdown, LogList and LogSetLevel on real nodes (a repo without a chain,
 * the RPC server, the repo's tokens): the answers Lotus gives (filecoin-project/lotus
 * `api/api_common.go`), and Shutdown stopping the node it was sent to.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { LedgerNode } from '../../src/node/index.js';
import { rpcUrl } from '../../src/rpc/index.js';
import { setDefaultNetwork } from '../../src/types/index.js';
import { LEDGER_BIN } from '../helpers/ledger-cli.js';
import { call, startTestServer } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Started {
  readonly node: LedgerNode;
  readonly repo: string;
  readonly admin: Record<string, string>;
  readonly write: Record<string, string>;
  url(apiVersion?: 0 | 1): string;
}

const started: Started[] = [];

async function startNode(): Promise<Started> {
  const repo = mkdtempSync(join(tmpdir(), 'ledger-common-'));
  const node = await LedgerNode.start({ repoPath: repo, logger: pino({ level: 'silent' }), overrides: { apiPort: 0 } });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const s: Started = {
    node,
    repo,
    admin: bearer(node.repo.readToken() as string),
    write: bearer(await node.tokens.create(['read', 'write'])),
    url: (apiVersion = 1) => rpcUrl(node.apiAddress, apiVersion),
  };
  started.push(s);
  return s;
}

afterAll(async () => {
  for (const s of started) {
    await s.node.stop();
    rmSync(s.repo, { recursive: true, force: true });
  }
  setDefaultNetwork('f');
});

describe('Session and StartTime', () => {
  test('a UUID per node start, the same on both paths; the start time as RFC 3339', async () => {
    const before = Date.now();
    const a = await startNode();
    const b = await startNode();
    const session = (await call(a.url(1), 'Filecoin.Session', [])).result as string;
    expect(session).toMatch(UUID);
    expect((await call(a.url(0), 'Filecoin.Session', [])).result).toBe(session);
    expect((await call(b.url(1), 'Filecoin.Session', [])).result).not.toBe(session);

    const startTime = (await call(a.url(1), 'Filecoin.StartTime', [])).result as string;
    expect(startTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(Date.parse(startTime)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(startTime)).toBeLessThanOrEqual(Date.now());
  });

  test('a parameter too many is refused, naming what was wrong', async () => {
    const a = started[0] ?? (await startNode());
    const reply = await call(a.url(), 'Filecoin.Session', [1]);
    expect(reply.error?.code).toBe(-32602);
  });
});

describe('LogList and LogSetLevel', () => {
  test("list the node's subsystems and set their levels; write permission, as in Lotus", async () => {
    const a = started[0] ?? (await startNode());
    const denied = await call(a.url(), 'Filecoin.LogList', []);
    expect(denied.error).toEqual({ code: 1, message: "missing permission to invoke 'LogList' (need 'write')" });

    const list = (await call(a.url(), 'Filecoin.LogList', [], a.write)).result as string[];
    expect(list).toEqual(expect.arrayContaining(['node', 'rpc']));
    expect(list).toEqual([...list].sort());

    expect(await call(a.url(), 'Filecoin.LogSetLevel', ['rpc', 'debug'], a.write)).toEqual({
      id: 1,
      jsonrpc: '2.0',
      result: null,
    });
    expect(await call(a.url(), 'Filecoin.LogSetLevel', ['*', 'warn'], a.write)).toMatchObject({ result: null });
  });

  test('an unknown subsystem or level is a code-1 error naming it; the node keeps serving', async () => {
    const a = started[0] ?? (await startNode());
    expect((await call(a.url(), 'Filecoin.LogSetLevel', ['nope', 'info'], a.write)).error).toEqual({
      code: 1,
      message: expect.stringContaining('no such logger: "nope"'),
    });
    expect((await call(a.url(), 'Filecoin.LogSetLevel', ['rpc', 'loud'], a.write)).error).toEqual({
      code: 1,
      message: expect.stringContaining('unrecognized level: "loud"'),
    });
    expect((await call(a.url(), 'Filecoin.LogSetLevel', ['rpc'], a.write)).error?.code).toBe(-32602);
    expect((await call(a.url(), 'Filecoin.Session', [])).result).toMatch(UUID);
  });
});

describe('LogAlerts', () => {
  test('admin only, as in Lotus; this node raises no alerts, so the list is empty (not null)', async () => {
    const a = started[0] ?? (await startNode());
    expect((await call(a.url(), 'Filecoin.LogAlerts', [], a.write)).error).toEqual({
      code: 1,
      message: "missing permission to invoke 'LogAlerts' (need 'admin')",
    });
    expect(await call(a.url(), 'Filecoin.LogAlerts', [], a.admin)).toEqual({ id: 1, jsonrpc: '2.0', result: [] });
    expect((await call(a.url(0), 'Filecoin.LogAlerts', [], a.admin)).result).toEqual([]);
    expect((await call(a.url(), 'Filecoin.LogAlerts', [1], a.admin)).error?.code).toBe(-32602);
  });
});

describe('Shutdown', () => {
  test('needs admin; answers null, then the node stops: port closed, api file gone', async () => {
    const s = await startNode();
    const apiFile = join(s.repo, 'api');
    expect(existsSync(apiFile)).toBe(true);
    expect((await call(s.url(), 'Filecoin.Shutdown', [], s.write)).error).toEqual({
      code: 1,
      message: "missing permission to invoke 'Shutdown' (need 'admin')",
    });
    expect(await call(s.url(), 'Filecoin.Shutdown', [], s.admin)).toEqual({ id: 1, jsonrpc: '2.0', result: null });
    await s.node.stopped;
    expect(existsSync(apiFile)).toBe(false);
    await expect(fetch(s.url(), { method: 'POST', body: '{}' })).rejects.toThrow();
  });

  test('`ledger daemon` (the built bin) exits with code 0 once Shutdown has stopped its node', async () => {
    const bundle = new URL('../../dist/bundle/', import.meta.url);
    const built = readdirSync(bundle).some((file) =>
      readFileSync(new URL(file, bundle), 'utf8').includes('Shutdown called'),
    );
    if (!built) throw new Error('dist/ predates Shutdown: run `npm run build:ts`');
    const repo = mkdtempSync(join(tmpdir(), 'ledger-shutdown-'));
    const daemon = spawn(process.execPath, [LEDGER_BIN, 'daemon', '--api', '0'], {
      env: { ...process.env, LEDGER_PATH: repo, LEDGER_API_INFO: '' },
    });
    let log = '';
    daemon.stderr.on('data', (chunk) => {
      log += chunk;
    });
    const exited = new Promise<number | null>((resolve) => daemon.once('close', resolve));
    try {
      for (let i = 0; i < 400 && !(existsSync(join(repo, 'api')) && log.includes('node started')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const url = rpcUrl(readFileSync(join(repo, 'api'), 'utf8'), 1);
      const token = readFileSync(join(repo, 'token'), 'utf8');
      expect(await call(url, 'Filecoin.Shutdown', [], { authorization: `Bearer ${token}` })).toMatchObject({
        result: null,
      });
      expect(await exited).toBe(0);
      expect(log).toContain('Shutdown called over the API');
      expect(log).toContain('node stopped');
      expect(existsSync(join(repo, 'api'))).toBe(false);
    } finally {
      if (daemon.exitCode === null) daemon.kill('SIGKILL');
      rmSync(repo, { recursive: true, force: true });
    }
  });

  test('a server with no node behind it says it cannot stop one', async () => {
    const server = await startTestServer();
    try {
      const reply = await call(server.url(), 'Filecoin.Shutdown', [], {
        authorization: `Bearer ${server.tokens.admin}`,
      });
      expect(reply.error).toEqual({
        code: 1,
        message: 'Filecoin.Shutdown: this node does not serve stopping the node (no shutdown service)',
      });
    } finally {
      await server.close();
    }
  });
});
