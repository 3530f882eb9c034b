/**
 * `<repo>/miners.json`, the miners `ledger miner init` added: a file that is not what the node
 * writes stops the start with an error naming the file and what is wrong in it, rather than a
 * TypeError deep inside. (Running the miners it lists is covered end to end by test/cli/miner.test.ts.)
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/node/errors.js';
import { LocalMiners, type LocalMinersOptions } from '../../src/node/local-miners.js';

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'ledger-local-miners-'));
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

/** Only the repo is read before the file is found bad: no chain or wallet is needed to get there. */
async function startWith(contents: string): Promise<unknown> {
  writeFileSync(join(repo, 'miners.json'), contents);
  const miners = new LocalMiners({ repoPath: repo } as LocalMinersOptions);
  return miners.start(undefined, false).then(
    () => undefined,
    (error: unknown) => error,
  );
}

test.each([
  ['{', /miners\.json: not JSON \(/],
  ['{"Address": "t01002"}', /miners\.json: not a list; expected \[\{"Address"/],
  ['[{"Address": "nope", "SectorDirectory": "/s"}]', /miners\.json: \[0\]\.Address/],
  ['[{"Address": "t01002"}]', /miners\.json: \[0\]\.SectorDirectory is not a path/],
])('%s is refused with a ConfigError naming the file and the fault', async (contents, message) => {
  const error = await startWith(contents);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toMatch(message);
  expect((error as Error).message).toContain(join(repo, 'miners.json'));
});
