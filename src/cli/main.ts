import { readFileSync } from 'node:fs';
import { Command } from 'commander';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

export function buildProgram(): Command {
  return new Command('ledger')
    .description('Full node and miner for the Ledger network (Filecoin/Lotus-compatible)')
    .version(packageVersion(), '-v, --version')
    .showHelpAfterError();
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp();
    return;
  }
  await program.parseAsync(argv);
}
