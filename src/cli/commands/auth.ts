/** `ledger auth create-token|api-info`: mint API tokens (`lotus:cli/auth.go`). */
import { Command } from 'commander';
import { isPermission, PERMISSIONS, permissionsUpTo } from '../../rpc/method.js';
import { readJsonBytes } from '../../types/index.js';
import { InvalidArgumentError } from '../../utils/errors.js';
import { API_INFO_ENV, connectToNode, findNode, type GlobalOptions, globalOptions } from '../node-connection.js';

/** A token with `--perm` and every permission below it (`sign` → read, write, sign), as Lotus mints them. */
async function createToken(perm: string | undefined, missingMessage: string, options: GlobalOptions): Promise<string> {
  if (perm === undefined) throw new InvalidArgumentError(missingMessage);
  if (!isPermission(perm)) throw new InvalidArgumentError(`--perm flag has to be one of: [${PERMISSIONS.join(' ')}]`);
  const api = await connectToNode(options);
  // AuthNew answers the token's bytes in base64, as Lotus's []byte result.
  return new TextDecoder().decode(readJsonBytes(await api.AuthNew(permissionsUpTo(perm)), 'AuthNew'));
}

export function authCommand(): Command {
  const auth = new Command('auth').description('Manage RPC permissions');

  auth
    .command('create-token')
    .description('Create an API token')
    .option('--perm <permission>', `permission to assign to the token, one of: ${PERMISSIONS.join(', ')}`)
    .action(async (options: { perm?: string }, command: Command) => {
      const token = await createToken(options.perm, '--perm flag not set', globalOptions(command));
      process.stdout.write(`${token}\n`);
    });

  auth
    .command('api-info')
    .description(`Print ${API_INFO_ENV}=<token>:<address>, what a client needs to connect to this node`)
    .option('--perm <permission>', `permission to assign to the token, one of: ${PERMISSIONS.join(', ')}`)
    .action(async (options: { perm?: string }, command: Command) => {
      const globals = globalOptions(command);
      const token = await createToken(
        options.perm,
        `--perm flag not set, use with one of: ${PERMISSIONS.join(', ')}`,
        globals,
      );
      process.stdout.write(`${API_INFO_ENV}=${token}:${findNode(globals).address}\n`);
    });

  return auth;
}
