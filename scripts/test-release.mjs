#!/usr/bin/env node
// `npm run test:release`: rehearses the npm release on this machine, as a user meets it.
//
// 1. Packs the release with the release workflow's own steps (scripts/release-packages.mjs): this platform's
//    `@ledger-node/native-<platform>` from the addon `npm install` built in native/, `@ledger-node/native` and
//    `ledger-node`. With `--packages <dir>` it takes a release already packed there instead (the workflow rehearses
//    the very tarballs it then publishes).
// 2. Starts a local registry (verdaccio, installed on demand into $LEDGER_CACHE_DIR/verdaccio) on 127.0.0.1, which
//    serves our packages itself and proxies every other one from the registry npm is configured with, and publishes
//    the tarballs to it as the workflow publishes to npm.
// 3. Installs `ledger-node` into an empty directory with a fresh npm cache and a PATH without cargo or rustc.
// 4. Runs the installed `ledger devnet` on a temporary repo until it has mined 3 blocks.
// 5. Uses the installed package as a library (scripts/check-library.mjs): a plain .mjs file imports `startDevnet` from
//    'ledger-node', waits for a mined tipset over `rpcUrl`, stops it and exits; a .ts file type-checks against its typings.
// Prints the tarball sizes, the install time and the devnet's times. npm runs with a temporary user config and
// cache, so the user's npm setup is untouched. Every child (verdaccio, npm, the devnet) runs in its own process
// group and is ended on success, failure, timeout (LEDGER_RELEASE_TEST_TIMEOUT_SECS, default 1800) or Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheRoot, ensureCachedTool } from './cache-dirs.mjs';
import { checkLibrary } from './check-library.mjs';
import { formatSize, packRelease, printRelease, publishRelease, readRelease } from './release-packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// verdaccio 6.8 is the newest that runs on Node 20; its node-fetch range needs pinning to install.
const VERDACCIO = ['verdaccio@6.8.0'];
const VERDACCIO_OVERRIDES = { 'node-fetch': '2.7.0' };
const BLOCKS = 3;
const TIMEOUT_SECS = Number(process.env.LEDGER_RELEASE_TEST_TIMEOUT_SECS ?? 1800);

const started = performance.now();
const seconds = (since = started) => ((performance.now() - since) / 1000).toFixed(1);
const step = (what) => console.error(`\n== ${what} (${seconds()} s)`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Children still running, by process group id. */
const running = new Set();
const tmp = mkdtempSync(join(tmpdir(), 'ledger-release-'));

function endChildren(signal = 'SIGTERM') {
  for (const pgid of running) {
    try {
      process.kill(-pgid, signal);
    } catch {
      running.delete(pgid); // already gone
    }
  }
}

/** Runs `command` in its own process group (so a timeout ends its children too). */
function start(command, args, options) {
  const child = spawn(command, args, { ...options, detached: true });
  running.add(child.pid);
  child.once('exit', () => running.delete(child.pid));
  return child;
}

function exited(child) {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    child.once('exit', (code, signal) => resolve(code ?? signal));
    child.once('error', reject);
  });
}

async function stop(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  process.kill(-child.pid, 'SIGTERM');
  const done = exited(child);
  if ((await Promise.race([done, sleep(10_000).then(() => 'timeout')])) === 'timeout') {
    process.kill(-child.pid, 'SIGKILL');
    await done;
  }
}

async function runChecked(what, command, args, options) {
  const child = start(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  const code = await exited(child);
  if (code !== 0) throw new Error(`${what} failed (exit ${code})`);
}

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(what, timeoutMs, probe, child) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child !== undefined && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`${what}: the process exited (${child.exitCode ?? child.signalCode})`);
    }
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

/** The environment npm sees in a user's shell: none of `npm run`'s variables, our temporary config and cache. */
function npmEnvironment(base, userconfig, cache) {
  const env = Object.fromEntries(
    Object.entries(base).filter(([key]) => !/^(npm_|INIT_CWD$|NODE$|CARGO|RUSTUP)/i.test(key)),
  );
  env.npm_config_userconfig = userconfig;
  env.npm_config_cache = cache;
  env.npm_config_update_notifier = 'false';
  // node-gyp (better-sqlite3 builds from source when its prebuilt binary cannot be downloaded) needs Node's headers:
  // use the installed ones rather than downloading them, as .ci/run does.
  const prefix = dirname(dirname(process.execPath));
  if (existsSync(join(prefix, 'include', 'node', 'node.h'))) env.npm_config_nodedir = prefix;
  return env;
}

/** PATH without the directories that hold cargo or rustc: the user of the release has no Rust. */
function pathWithoutRust(path) {
  const exe = process.platform === 'win32' ? '.exe' : '';
  const kept = path
    .split(delimiter)
    .filter((dir) => dir !== '' && !['cargo', 'rustc', 'rustup'].some((tool) => existsSync(join(dir, tool + exe))));
  const result = kept.join(delimiter);
  for (const tool of ['node', 'npm']) {
    if (spawnSync(tool, ['--version'], { env: { PATH: result }, shell: process.platform === 'win32' }).status !== 0) {
      throw new Error(`${tool} shares a directory with cargo on PATH; cannot make a PATH without Rust`);
    }
  }
  if (spawnSync('cargo', ['--version'], { env: { PATH: result } }).status === 0) {
    throw new Error('cargo is still on the PATH meant to be without it');
  }
  return result;
}

async function startRegistry(tmp, userconfig, env) {
  const verdaccio = ensureCachedTool('verdaccio', VERDACCIO, { overrides: VERDACCIO_OVERRIDES });
  const uplink = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).stdout.trim();
  const port = await freePort();
  const config = join(tmp, 'verdaccio.yaml');
  // Our package names are served only from what we publish: never proxied, so a name taken on the public registry
  // cannot stand in for ours, and a platform package we did not publish is a 404 (npm skips it: it is optional).
  const ours = '    access: $all\n    publish: $authenticated\n';
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(tmp, 'storage'))}`,
      'auth:',
      `  htpasswd: { file: ${JSON.stringify(join(tmp, 'htpasswd'))}, max_users: 1 }`,
      `uplinks:\n  upstream:\n    url: ${JSON.stringify(uplink)}\n    timeout: 60s`,
      'packages:',
      `  '@ledger-node/*':\n${ours}`,
      `  'ledger-node':\n${ours}`,
      "  '**':\n    access: $all\n    proxy: upstream",
      'max_body_size: 500mb',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const url = `http://127.0.0.1:${port}/`;
  const log = join(tmp, 'verdaccio.log');
  const child = start(
    process.execPath,
    [
      join(verdaccio, 'node_modules', 'verdaccio', 'bin', 'verdaccio'),
      '--config',
      config,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')], env: { ...env, NODE_NO_WARNINGS: '1' } },
  );
  await until('verdaccio', 60_000, async () => ((await fetch(`${url}-/ping`)).ok ? true : undefined), child);
  // A throwaway user; its token goes into the temporary npm config only.
  const password = `rehearsal-${process.pid}-${Date.now()}`;
  const response = await fetch(`${url}-/user/org.couchdb.user:rehearsal`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password }),
  });
  const { token } = await response.json();
  if (token === undefined) throw new Error(`verdaccio did not create a user (HTTP ${response.status})`);
  writeFileSync(userconfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  console.error(`verdaccio on ${url} (upstream ${uplink}; log ${log})`);
  return { url, child };
}

/** Checks the installed tree: the platform package came from the registry, nothing but the bundle rode along. */
function checkInstalled(app, release) {
  const nodeModules = join(app, 'node_modules');
  const installed = JSON.parse(readFileSync(join(nodeModules, 'ledger-node', 'package.json'), 'utf8'));
  const native = release.packages.find((p) => p.name === '@ledger-node/native');
  const problems = [];
  if (installed.dependencies['@ledger-node/native'] !== native.version) {
    problems.push(`ledger-node depends on @ledger-node/native ${installed.dependencies['@ledger-node/native']}`);
  }
  if (installed.scripts !== undefined) problems.push(`ledger-node has scripts: ${Object.keys(installed.scripts)}`);
  if (existsSync(join(nodeModules, 'ledger-node', 'native'))) problems.push('ledger-node ships a native/ directory');
  const dist = readdirSync(join(nodeModules, 'ledger-node', 'dist'));
  if (dist.join() !== 'bundle') problems.push(`ledger-node's dist/ holds ${dist.join(', ')}`);
  const platforms = release.packages.filter((p) => p.name.startsWith('@ledger-node/native-')).map((p) => p.name);
  const present = platforms.filter((name) => existsSync(join(nodeModules, name, 'package.json')));
  if (present.length !== 1) problems.push(`platform packages installed: ${present.join(', ') || 'none'}`);
  if (problems.length > 0) throw new Error(`the installed package is wrong:\n  ${problems.join('\n  ')}`);
  return present[0];
}

async function rpc(url, method, params = []) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
  });
  const body = await response.json();
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Non-genesis tipsets from `head` back to genesis (null rounds hold none). */
async function minedTipsets(url, head) {
  let count = 0;
  for (let ts = head; ts.Height > 0; ts = await rpc(url, 'Filecoin.ChainGetTipSet', [ts.Blocks[0].Parents])) count++;
  return count;
}

async function runDevnet(app, tmp, env) {
  const repo = join(tmp, 'repo');
  const log = join(tmp, 'devnet.log');
  const launched = performance.now();
  const out = openSync(log, 'a');
  const bin = join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'ledger.cmd' : 'ledger');
  const child = start(bin, ['--repo', repo, 'devnet', '--api', '0'], {
    cwd: app,
    env: { ...env, LEDGER_CACHE_DIR: cacheRoot },
    stdio: ['ignore', out, out],
  });
  try {
    // A first run on a machine without the 2 KiB proof parameters generates them (about a minute).
    const url = await until(
      'the devnet RPC',
      600_000,
      async () => {
        const [, , host, , port] = readFileSync(join(repo, 'api'), 'utf8').trim().split('/');
        const address = `http://${host}:${port}/rpc/v1`;
        await rpc(address, 'Filecoin.Version');
        return address;
      },
      child,
    );
    const rpcSeconds = seconds(launched);
    console.error(`RPC answers at ${url} after ${rpcSeconds} s; waiting for ${BLOCKS} mined blocks`);
    let lastKey = '';
    const height = await until(
      `${BLOCKS} mined blocks`,
      300_000,
      async () => {
        const head = await rpc(url, 'Filecoin.ChainHead');
        const key = JSON.stringify(head.Cids);
        if (key === lastKey) return undefined;
        lastKey = key;
        return (await minedTipsets(url, head)) >= BLOCKS ? head.Height : undefined;
      },
      child,
    );
    return { rpcSeconds, blocksSeconds: seconds(launched), height, log };
  } catch (error) {
    console.error(`devnet log (${log}):\n${readFileSync(log, 'utf8').split('\n').slice(-40).join('\n')}`);
    throw error;
  } finally {
    await stop(child);
  }
}

function parseArgs(argv) {
  const i = argv.indexOf('--packages');
  return { packages: i >= 0 ? resolve(argv[i + 1]) : undefined, keep: argv.includes('--keep') };
}

async function main() {
  // Children are ended through their process groups, which Windows lacks; the release rehearses Windows nowhere.
  if (process.platform === 'win32') throw new Error('the release rehearsal runs on Linux and macOS');
  const args = parseArgs(process.argv.slice(2));
  const userconfig = join(tmp, 'npmrc');
  writeFileSync(userconfig, '');
  const env = npmEnvironment(process.env, userconfig, join(tmp, 'npm-cache'));
  let registry;
  let passed = false;
  try {
    step('pack the release');
    let packages = args.packages;
    if (packages === undefined) {
      packages = join(tmp, 'packages');
      packRelease({ artifactsDir: join(root, 'native'), outDir: packages });
    }
    const release = readRelease(packages);
    printRelease(release);

    step('start a local registry');
    registry = await startRegistry(tmp, userconfig, env);

    step('publish');
    publishRelease(packages, [], env);

    step('install ledger-node into an empty directory, without Rust');
    const app = join(tmp, 'app');
    mkdirSync(app);
    const published = release.packages.at(-1);
    const installEnv = { ...env, PATH: pathWithoutRust(process.env.PATH ?? '') };
    const installStarted = performance.now();
    await runChecked(
      'npm install',
      'npm',
      ['install', '--no-audit', '--no-fund', `${published.name}@${published.version}`],
      {
        cwd: app,
        env: installEnv,
      },
    );
    const installSeconds = seconds(installStarted);
    const platform = checkInstalled(app, release);
    // better-sqlite3 compiles from source when its prebuilt binary cannot be downloaded (most of the time then).
    const compiled = existsSync(join(app, 'node_modules', 'better-sqlite3', 'build', 'Release', 'obj.target'));
    const sqliteNote = compiled ? ', better-sqlite3 compiled from source' : '';
    console.error(`installed in ${installSeconds} s (addon from ${platform}${sqliteNote})`);

    step(`ledger devnet until ${BLOCKS} blocks are mined`);
    const devnet = await runDevnet(app, tmp, installEnv);

    step("import { startDevnet } from 'ledger-node' in a plain .mjs file");
    const library = await checkLibrary(app, { ...installEnv, LEDGER_CACHE_DIR: cacheRoot });

    step('summary');
    printRelease(release);
    const total = release.packages.reduce((sum, p) => sum + p.size, 0);
    console.log(`published: ${formatSize(total)} in ${release.packages.length} tarballs`);
    console.log(
      `npm install ${published.name}@${published.version} (empty directory, empty npm cache, no cargo): ${installSeconds} s${sqliteNote}`,
    );
    console.log(
      `ledger devnet: RPC after ${devnet.rpcSeconds} s, ${BLOCKS} blocks mined after ${devnet.blocksSeconds} s (height ${devnet.height})`,
    );
    console.log(
      `library: startDevnet() mined, answered ChainHead, stopped and exited in ${library.seconds} s; typings check`,
    );
    console.log(`test:release passed in ${seconds()} s`);
    passed = true;
  } finally {
    if (registry !== undefined) await stop(registry.child);
    // A failed run keeps its directory: verdaccio's log, npm's logs (npm-cache/_logs), the devnet's log and repo.
    if (args.keep || !passed) console.error(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

const deadline = setTimeout(() => {
  console.error(`test:release: timed out after ${TIMEOUT_SECS} s`);
  endChildren('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
  process.exit(1);
}, TIMEOUT_SECS * 1000);
deadline.unref();
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    endChildren('SIGKILL');
    rmSync(tmp, { recursive: true, force: true });
    process.exit(130);
  });
}
process.once('exit', () => endChildren('SIGKILL'));

try {
  await main();
} catch (error) {
  console.error(`test:release failed: ${error.message}`);
  endChildren('SIGKILL');
  process.exitCode = 1;
}
