import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { LedgerError } from '../utils/errors.js';
import { authCommand } from './commands/auth.js';
import { chainCommand } from './commands/chain.js';
import { chainExportCommand } from './commands/chain-export.js';
import { daemonCommand } from './commands/daemon.js';
import { devnetCommand } from './commands/devnet.js';
import { evmCommand } from './commands/evm.js';
import { minerCommand } from './commands/miner.js';
import { mpoolCommand } from './commands/mpool.js';
import { netCommand } from './commands/net.js';
import { networkCommand } from './commands/network.js';
import { proofsCommand } from './commands/proofs.js';
import { sendCommand } from './commands/send.js';
import { stateCommand } from './commands/state.js';
import { syncCommand } from './commands/sync.js';
import { versionCommand } from './commands/version.js';
import { waitApiCommand } from './commands/wait-api.js';
import { walletCommand } from './commands/wallet.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  return new Command('ledger')
    .description('Full node and miner for the Ledger network (Filecoin/Lotus-compatible)')
    .version(packageVersion(), '-v, --version')
    .option('--repo <path>', 'the node repo directory (default: $LEDGER_PATH, else ~/.ledger)')
    .showHelpAfterError()
    .addCommand(daemonCommand())
    .addCommand(devnetCommand())
    .addCommand(chainCommand().addCommand(chainExportCommand()))
    .addCommand(walletCommand())
    .addCommand(sendCommand())
    .addCommand(evmCommand())
    .addCommand(mpoolCommand())
    .addCommand(stateCommand())
    .addCommand(netCommand())
    .addCommand(networkCommand())
    .addCommand(syncCommand())
    .addCommand(authCommand())
    .addCommand(versionCommand())
    .addCommand(waitApiCommand())
    .addCommand(proofsCommand())
    .addCommand(minerCommand());
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    // Errors the node raises on purpose carry a clear message; anything else is a bug worth a stack.
    if (!(error instanceof LedgerError)) throw error;
    process.stderr.write(`ledger: ${error.message} (${error.code})\n`);
    process.exitCode = 1;
  }
}
