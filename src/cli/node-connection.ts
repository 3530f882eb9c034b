/**
 * How CLI commands find the node, as Lotus's CLI does: `LEDGER_API_INFO=<token>:<multiaddr or URL>`
 * when set, else the `api` and `token` files of the repo (`--repo`, `$LEDGER_PATH`, `~/.ledger`).
 * Without a token the node still answers read-level calls.
 */
import type { Command } from 'commander';
import { defaultRepoPath, Repo } from '../node/repo.js';
import { type LedgerApi, ledgerApi, RpcClient, type RpcClientOptions } from '../rpc/client.js';
import { parseApiInfo, rpcUrl } from '../rpc/endpoint.js';
import { setDefaultNetwork } from '../types/index.js';
import { LedgerError } from '../utils/errors.js';

export const API_INFO_ENV = 'LEDGER_API_INFO';

export interface GlobalOptions {
  repo?: string;
}

export interface NodeEndpoint {
  /** The multiaddr or URL of the API, as found. */
  readonly address: string;
  readonly token: string | undefined;
}

/** The global options (`--repo`) as a subcommand's action sees them. */
export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

export function repoFromOptions(options: GlobalOptions): Repo {
  return new Repo(options.repo ?? defaultRepoPath());
}

function readTokenIfAllowed(repo: Repo): string | undefined {
  try {
    return repo.readToken();
  } catch (error) {
    // A token file this user may not read: go on with read permission, as Lotus's CLI does.
    if ((error as NodeJS.ErrnoException).code === 'EACCES') return undefined;
    throw error;
  }
}

export function findNode(options: GlobalOptions): NodeEndpoint {
  const info = process.env[API_INFO_ENV];
  if (info !== undefined && info.trim() !== '') return parseApiInfo(info);
  const repo = repoFromOptions(options);
  const address = repo.readApi();
  if (address === undefined) {
    throw new LedgerError(
      'ERR_NODE_UNREACHABLE',
      `cannot reach the node: ${repo.apiFile} does not exist (is \`ledger daemon\` running with this repo? set --repo, ${'$'}LEDGER_PATH or ${API_INFO_ENV})`,
    );
  }
  return { address, token: readTokenIfAllowed(repo) };
}

/** The typed client of the node at `endpoint` (API v1); `timeoutMs` for calls that may take long. */
export function apiOf(endpoint: NodeEndpoint, timeoutMs?: number): LedgerApi {
  const options: RpcClientOptions = { url: rpcUrl(endpoint.address, 1), token: endpoint.token };
  return ledgerApi(new RpcClient(timeoutMs === undefined ? options : { ...options, timeoutMs }));
}

/**
 * A client for the node. Addresses are printed with the node's network char (`t` on test
 * networks), which this process learns from the node's version (`<version>+<network>…`): like
 * Lotus, only mainnet writes `f`.
 */
export async function connectToNode(options: GlobalOptions): Promise<LedgerApi> {
  const api = apiOf(findNode(options));
  const { Version } = await api.Version();
  setDefaultNetwork(Version.split('+')[1] === 'mainnet' ? 'f' : 't');
  return api;
}
