/** `ledger version`: the daemon's version and API version, then this CLI's (as `lotus version`). */
import { Command } from 'commander';
import { packageVersion } from '../../node/version.js';
import { API_SEMVER } from '../../rpc/method.js';
import type { ApiVersionJson } from '../../rpc/methods/common.js';
import { connectToNode, globalOptions } from '../node-connection.js';

function semver(packed: number): string {
  return `${packed >> 16}.${(packed >> 8) & 0xff}.${packed & 0xff}`;
}

/** Lotus `APIVersion.String()`: `<version>+api<semver>`. */
export function describeDaemon(version: ApiVersionJson): string {
  return `${version.Version}+api${semver(version.APIVersion)}`;
}

export function versionCommand(): Command {
  return new Command('version')
    .description('Print the version of the running node and of this CLI')
    .option('--json', 'print JSON: {"daemon": APIVersion, "local": version}')
    .action(async (options: { json?: boolean }, command: Command) => {
      const api = await connectToNode(globalOptions(command));
      const daemon = await api.Version();
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify({ daemon, local: packageVersion() }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`Daemon:  ${describeDaemon(daemon)}\n`);
      process.stdout.write(`Local: ledger version ${packageVersion()} (API ${API_SEMVER[1].join('.')})\n`);
    });
}
