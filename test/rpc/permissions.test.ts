/**
 * The permission matrix, generated from the method declarations: every method on both paths ×
 * {no token, read, write, sign, admin, forged} must give exactly the outcome its permission says —
 * allowed (the call gets past the permission check), denied (code 1, Lotus's message), or HTTP 401.
 * Methods with parameters below must also succeed when allowed; the chain-backed ones (this server
 * has no chain) are run with real parameters by the devnet e2e suites, so here an allowed call
 * only has to get past the permission check.
 */
import { readFileSync } from 'node:fs';
import {
  type ApiVersion,
  allMethods,
  PERMISSIONS,
  type Permission,
  permissionsUpTo,
  type RpcMethod,
} from '../../src/rpc/index.js';
import { messageToLotusJson, signatureToLotusJson } from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import { generateKey, KeyType, keyInfoToLotusJson } from '../../src/wallet/index.js';
import { sampleMessage } from '../types/fixtures.js';
import {
  authorization,
  type Caller,
  post,
  startTestServer,
  type TestServer,
  unsignedAdminToken,
  wrongAlgorithmToken,
} from './harness.js';
import { GoJsonRpcClient, type RpcCallError } from './ws-client.js';

let server: TestServer;
let signer: string;

/** Valid parameters for each method; functions, so that every call gets fresh ones. */
const validParams: Record<string, () => unknown[]> = {
  Version: () => [],
  Discover: () => [],
  Session: () => [],
  StartTime: () => [],
  LogList: () => [],
  LogSetLevel: () => ['rpc', 'info'],
  AuthNew: () => [['read', 'write']],
  AuthVerify: () => [server.tokens.sign],
  WalletNew: () => ['bls'],
  WalletHas: () => [signer],
  WalletList: () => [],
  WalletDefaultAddress: () => [],
  WalletSetDefault: () => [signer],
  WalletSign: () => [signer, toBase64(new TextEncoder().encode('hello'))],
  WalletSignMessage: () => [signer, messageToLotusJson(sampleMessage())],
  WalletVerify: () => [signer, '', signatureToLotusJson({ type: 1, data: new Uint8Array(65) })],
  WalletValidateAddress: () => [signer],
  WalletExport: () => [signer],
  WalletImport: () => [keyInfoToLotusJson(generateKey(KeyType.Secp256k1).keyInfo)],
  WalletDelete: () => [generateKey(KeyType.BLS).address.toString()],
};

beforeAll(async () => {
  server = await startTestServer();
  signer = server.context.wallet.newKey(KeyType.Secp256k1).toString();
});
afterAll(() => server.close());

const callers: Caller[] = ['anonymous', ...PERMISSIONS, 'forged'];

function expectedOutcome(method: RpcMethod, caller: Caller): 'allowed' | 'denied' | 'unauthorized' {
  if (caller === 'forged') return 'unauthorized';
  const granted: readonly string[] = caller === 'anonymous' ? ['read'] : permissionsUpTo(caller as Permission);
  return granted.includes(method.permission) ? 'allowed' : 'denied';
}

test("every method Lotus's v1 API has carries Lotus's perm tag (docs/lotus-v1-methods.json, from api/api_full.go)", () => {
  const lotus: { methods: { name: string; permission: string }[] } = JSON.parse(
    readFileSync(new URL('../../docs/lotus-v1-methods.json', import.meta.url), 'utf8'),
  );
  const lotusPermission = new Map(lotus.methods.map((m) => [m.name, m.permission]));
  const differing = allMethods
    .filter((m) => lotusPermission.has(m.name) && lotusPermission.get(m.name) !== m.permission)
    .map((m) => `${m.name}: ${m.permission}, Lotus ${lotusPermission.get(m.name)}`);
  expect(differing).toEqual([]);
  expect(allMethods.filter((m) => lotusPermission.has(m.name)).length).toBeGreaterThan(100);
});

test('every method with parameters for the matrix is declared', () => {
  const declared = new Set<string>(allMethods.map((m) => m.name));
  expect(Object.keys(validParams).filter((name) => !declared.has(name))).toEqual([]);
});

const cases = allMethods.flatMap((method) =>
  method.apiVersions.flatMap((apiVersion) =>
    callers.map((caller) => ({ method, apiVersion, caller, outcome: expectedOutcome(method, caller) })),
  ),
);

test.each(
  cases.map((c) => [`${c.method.name} (${c.method.permission}) v${c.apiVersion}`, c.caller, c.outcome, c] as const),
)(
  '%s as %s: %s',
  async (_name, caller, outcome, { method, apiVersion }: { method: RpcMethod; apiVersion: ApiVersion }) => {
    const validParamsOf = validParams[method.name];
    const params = validParamsOf?.() ?? [];
    const reply = await post(
      server.url(apiVersion),
      { jsonrpc: '2.0', method: `Filecoin.${method.name}`, params, id: 7 },
      authorization(server, caller),
    );
    if (outcome === 'unauthorized') {
      expect(reply.status).toBe(401);
      expect(reply.text).toBe('');
      return;
    }
    expect(reply.status).toBe(200);
    const response = JSON.parse(reply.text);
    if (outcome === 'denied') {
      expect(response).toEqual({
        error: { code: 1, message: `missing permission to invoke '${method.name}' (need '${method.permission}')` },
        id: 7,
        jsonrpc: '2.0',
      });
    } else if (validParamsOf !== undefined) {
      expect(response.error).toBeUndefined();
      expect(response).toHaveProperty('result');
    } else {
      expect(response.error?.message ?? '').not.toMatch(/^missing permission/);
    }
  },
);

describe('tokens', () => {
  test.each([
    ['garbage', 'Bearer not-a-jwt'],
    ['an unsigned (alg: none) admin token', `Bearer ${unsignedAdminToken()}`],
    ['no Bearer prefix', 'Token abc'],
    ['an empty bearer', 'Bearer '],
  ])('%s is HTTP 401 with an empty body', async (_label, header) => {
    const reply = await post(
      server.url(),
      { jsonrpc: '2.0', method: 'Ledger.Version', id: 1 },
      { authorization: header },
    );
    expect(reply.status).toBe(401);
    expect(reply.text).toBe('');
  });

  test('a token signed with another algorithm under the right secret is HTTP 401', async () => {
    const reply = await post(
      server.url(),
      { jsonrpc: '2.0', method: 'Ledger.Version', id: 1 },
      { authorization: `Bearer ${await wrongAlgorithmToken(server.secret)}` },
    );
    expect(reply.status).toBe(401);
  });

  test('the token may come as ?token= instead of a header, as go-jsonrpc allows', async () => {
    const reply = await post(`${server.url()}?token=${server.tokens.write}`, {
      jsonrpc: '2.0',
      method: 'Ledger.WalletList',
      id: 1,
    });
    expect(JSON.parse(reply.text).result).toContain(signer);
  });

  test('permission is set membership, as in Lotus: a token listing only admin cannot read', async () => {
    const adminOnly = await server.context.tokens.create(['admin']);
    const reply = await post(
      server.url(),
      { jsonrpc: '2.0', method: 'Ledger.AuthVerify', params: [adminOnly], id: 1 },
      { authorization: `Bearer ${adminOnly}` },
    );
    expect(JSON.parse(reply.text).error).toEqual({
      code: 1,
      message: "missing permission to invoke 'AuthVerify' (need 'read')",
    });
  });

  test('tokens are Lotus tokens: HS256 header, payload {"Allow": [...]}, and AuthVerify reads them back', async () => {
    const token = server.tokens.sign;
    const [header, payload] = token.split('.');
    expect(header).toBe('eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9');
    expect(JSON.parse(Buffer.from(payload as string, 'base64url').toString())).toEqual({
      Allow: ['read', 'write', 'sign'],
    });
    const reply = await post(server.url(), { jsonrpc: '2.0', method: 'Ledger.AuthVerify', params: [token], id: 1 });
    expect(JSON.parse(reply.text).result).toEqual(['read', 'write', 'sign']);
  });

  test('AuthNew returns the token base64-encoded, as Lotus does, and it works', async () => {
    const reply = await post(
      server.url(),
      { jsonrpc: '2.0', method: 'Ledger.AuthNew', params: [['read', 'write']], id: 1 },
      authorization(server, 'admin'),
    );
    const token = Buffer.from(JSON.parse(reply.text).result, 'base64').toString();
    const list = await post(
      server.url(),
      { jsonrpc: '2.0', method: 'Ledger.WalletList', id: 2 },
      { authorization: `Bearer ${token}` },
    );
    expect(JSON.parse(list.text).result).toContain(signer);
  });

  test('AuthVerify of a forged token is a code-1 error, not a crash', async () => {
    const reply = await post(server.url(), {
      jsonrpc: '2.0',
      method: 'Ledger.AuthVerify',
      params: [server.forgedToken],
      id: 1,
    });
    expect(JSON.parse(reply.text).error).toEqual({
      code: 1,
      message: expect.stringMatching(/^JWT Verification failed: /),
    });
  });
});

describe('over WebSocket (the token is read at the upgrade)', () => {
  test.each(callers.filter((caller) => caller !== 'forged'))(
    'as %s every method is allowed or denied exactly as over HTTP POST',
    async (caller) => {
      const token = caller === 'anonymous' ? undefined : server.tokens[caller as Permission];
      for (const apiVersion of [0, 1] as const) {
        const client = await GoJsonRpcClient.connect(server.url(apiVersion), token);
        for (const method of allMethods.filter((m) => m.apiVersions.includes(apiVersion))) {
          const error = await client.call(`Filecoin.${method.name}`, validParams[method.name]?.() ?? []).then(
            () => undefined,
            (e: RpcCallError) => e.error,
          );
          if (expectedOutcome(method, caller) === 'denied') {
            expect(error).toEqual({
              code: 1,
              message: `missing permission to invoke '${method.name}' (need '${method.permission}')`,
            });
          } else {
            expect(error?.message ?? '').not.toMatch(/^missing permission/);
          }
        }
        await client.close();
      }
    },
  );

  test.each([
    ['a token signed with another secret', () => server.forgedToken],
    ['an unsigned (alg: none) admin token', unsignedAdminToken],
    ['garbage', () => 'not-a-jwt'],
  ])('%s: the upgrade is refused with HTTP 401, as go-jsonrpc refuses it', async (_label, token) => {
    await expect(GoJsonRpcClient.connect(server.url(), token())).rejects.toMatchObject({ status: 401 });
  });

  test('the token may come as ?token= on the upgrade, as browsers send it', async () => {
    const client = await GoJsonRpcClient.connect(`${server.url()}?token=${server.tokens.write}`);
    expect(await client.call('Ledger.WalletList')).toContain(signer);
    await client.close();
  });
});

test("every v1 method Lotus also has carries Lotus's permission (docs/lotus-v1-methods.json, from api/api_full.go)", () => {
  const lotus: { methods: { name: string; permission: string }[] } = JSON.parse(
    readFileSync(new URL('../../docs/lotus-v1-methods.json', import.meta.url), 'utf8'),
  );
  const lotusPermission = new Map(lotus.methods.map((method) => [method.name, method.permission]));
  const served = allMethods.filter((method) => method.apiVersions.includes(1) && lotusPermission.has(method.name));
  expect(served.length).toBeGreaterThan(100);
  expect(served.filter((method) => method.permission !== lotusPermission.get(method.name)).map((m) => m.name)).toEqual(
    [],
  );
});
