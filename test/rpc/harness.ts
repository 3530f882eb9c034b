/**
 * A real RPC server on 127.0.0.1 with an ephemeral port, over real services (a file keystore in a
 * temporary directory, a real token authority), plus plain-HTTP helpers to talk to it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SignJWT } from 'jose';
import { pino } from 'pino';
import { SubsystemLoggers } from '../../src/node/subsystem-loggers.js';
import {
  generateJwtSecret,
  PERMISSIONS,
  type Permission,
  permissionsUpTo,
  type RpcContext,
  type RpcMethod,
  RpcServer,
  type RpcServerOptions,
  startingNodeInfo,
  TokenAuthority,
} from '../../src/rpc/index.js';
import { setDefaultNetwork } from '../../src/types/index.js';
import { Keystore, Wallet } from '../../src/wallet/index.js';

export type Caller = 'anonymous' | Permission | 'forged';

export interface TestServer {
  readonly server: RpcServer;
  readonly context: RpcContext;
  readonly directory: string;
  /** A token per permission level, minted as `auth create-token --perm <level>` does. */
  readonly tokens: Readonly<Record<Permission, string>>;
  /** The API secret the tokens are signed with. */
  readonly secret: Uint8Array;
  /** An admin token signed with another secret. */
  readonly forgedToken: string;
  /** Everything the server logged, as JSON lines. */
  readonly logLines: string[];
  url(apiVersion?: 0 | 1): string;
  close(): Promise<void>;
}

export interface TestServerOptions {
  readonly maxRequestBytes?: number;
  readonly methods?: readonly RpcMethod[];
  readonly webSocket?: RpcServerOptions['webSocket'];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  setDefaultNetwork('t');
  const directory = mkdtempSync(join(tmpdir(), 'ledger-rpc-'));
  const secret = generateJwtSecret();
  const tokens = new TokenAuthority(secret);
  const logLines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const context: RpcContext = {
    node: startingNodeInfo('0.1.0+devnet', 4),
    wallet: new Wallet(new Keystore(join(directory, 'keystore'))),
    tokens,
    // The node's log subsystems (LogList, LogSetLevel) over this server's logger.
    logs: new SubsystemLoggers(logger),
  };
  const server = await RpcServer.start({
    context,
    logger,
    host: '127.0.0.1',
    port: 0,
    ...options,
  });
  const minted = Object.fromEntries(
    await Promise.all(PERMISSIONS.map(async (p) => [p, await tokens.create(permissionsUpTo(p))] as const)),
  ) as Record<Permission, string>;
  const forgedToken = await new TokenAuthority(generateJwtSecret()).create(PERMISSIONS);
  return {
    server,
    context,
    directory,
    tokens: minted,
    secret,
    forgedToken,
    logLines,
    url: (apiVersion = 1) => `http://127.0.0.1:${server.port}/rpc/v${apiVersion}`,
    close: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An unsigned token (`alg: none`) claiming admin. */
export function unsignedAdminToken(): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode({ Allow: PERMISSIONS })}.`;
}

/** A token signed with HS512 by the right secret: only HS256 is accepted. */
export function wrongAlgorithmToken(secret: Uint8Array): Promise<string> {
  return new SignJWT({ Allow: [...PERMISSIONS] }).setProtectedHeader({ alg: 'HS512' }).sign(secret);
}

export function authorization(test: TestServer, caller: Caller): Record<string, string> {
  if (caller === 'anonymous') return {};
  const token = caller === 'forged' ? test.forgedToken : test.tokens[caller];
  return { authorization: `Bearer ${token}` };
}

export interface HttpReply {
  readonly status: number;
  readonly contentType: string | null;
  readonly text: string;
}

/** POSTs a body as is (strings are sent verbatim, anything else as JSON). */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
}

/** Calls one method and returns the parsed JSON-RPC response (HTTP 200 required). */
export async function call(
  url: string,
  method: string,
  params: unknown[] | undefined,
  headers: Record<string, string> = {},
): Promise<{ result?: unknown; error?: { code: number; message: string }; id?: unknown }> {
  const request: Record<string, unknown> = { jsonrpc: '2.0', method, id: 1 };
  if (params !== undefined) request.params = params;
  const reply = await post(url, request, headers);
  if (reply.status !== 200) throw new Error(`HTTP ${reply.status}: ${reply.text}`);
  return JSON.parse(reply.text);
}
