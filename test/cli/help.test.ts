/**
 * Every command's `--help` renders (a bigint default once crashed `ledger devnet --help`) and
 * documents each of its options.
 */
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/main.js';

function commandsOf(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return [{ path, command }, ...command.commands.flatMap((sub) => commandsOf(sub, [...path, sub.name()]))];
}

const all = commandsOf(buildProgram());

test('the program has the Lotus-like command tree', () => {
  const names = all.map(({ path }) => path.join(' '));
  for (const expected of ['devnet', 'daemon', 'send', 'chain head', 'wallet new', 'sync status', 'sync wait']) {
    expect(names).toContain(expected);
  }
});

test.each(all.map(({ path, command }) => [path.join(' ') || 'ledger', command] as const))(
  '%s --help renders every option',
  (_name, command) => {
    const help = command.helpInformation();
    expect(help).toContain('Usage:');
    for (const option of command.options) expect(help).toContain(option.long ?? option.short ?? '');
  },
);

test('devnet --help shows the balance default in FIL', () => {
  const devnet = all.find(({ path }) => path.join(' ') === 'devnet')!.command;
  expect(devnet.helpInformation().replace(/\s+/g, ' ')).toContain('(default: 10000 FIL)');
});
