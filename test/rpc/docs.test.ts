/** docs/api.md and the OpenRPC document are generated from the declarations and must stay in step. */
import { readFileSync } from 'node:fs';
import { allMethods, buildOpenRpcDocument, type LotusMethodList, renderApiMarkdown } from '../../src/rpc/index.js';
import { call, startTestServer, type TestServer } from './harness.js';

const lotus: LotusMethodList = JSON.parse(
  readFileSync(new URL('../../docs/lotus-v1-methods.json', import.meta.url), 'utf8'),
);

test('docs/api.md is up to date (regenerate with `npm run docs:api`)', () => {
  const onDisk = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
  expect(onDisk).toBe(renderApiMarkdown(allMethods, lotus));
});

test('docs/api.md has a row for every method with its permission', () => {
  const markdown = renderApiMarkdown(allMethods, lotus);
  for (const method of allMethods) {
    expect(markdown).toMatch(new RegExp(`\\| \`Ledger\\.${method.name}\`[^\\n]* \\| ${method.permission} \\|`));
  }
});

test("docs/api.md counts the Lotus v1 methods served, per namespace, from Lotus's list", () => {
  const markdown = renderApiMarkdown(allMethods, lotus);
  const served = lotus.methods.filter(({ name }) =>
    allMethods.some((m) => m.name === name && m.apiVersions.includes(1)),
  );
  expect(markdown).toContain(`This node serves ${served.length} of the ${lotus.methods.length} methods`);
  const chain = lotus.methods.filter(({ name }) => /^Chain[A-Z]/.test(name));
  const chainServed = chain.filter((lotusMethod) => served.includes(lotusMethod));
  expect(markdown).toContain(`| Chain | ${chainServed.length} | ${chain.length} |`);
  // The list is the three interfaces at the recorded commit, as scripts/lotus-v1-methods.ts reads them.
  expect(lotus).toMatchObject({
    repository: 'filecoin-project/lotus',
    commit: expect.stringMatching(/^[0-9a-f]{40}$/),
  });
  expect(lotus.methods).toContainEqual({ name: 'ChainGetPath', permission: 'read' });
});

describe('rpc.discover', () => {
  let server: TestServer;
  // The test server has no chain, pool, network or miner: it serves (and describes) the methods that need none.
  const methods = allMethods.filter((method) => method.needs.length === 0);
  beforeAll(async () => {
    server = await startTestServer({ methods });
  });
  afterAll(() => server.close());

  test('serves the OpenRPC document of the path, also as Filecoin.Discover', async () => {
    const discovered = (await call(server.url(1), 'rpc.discover', [])).result;
    expect(discovered).toEqual(JSON.parse(JSON.stringify(buildOpenRpcDocument(methods, 1))));
    expect((await call(server.url(1), 'Filecoin.Discover', [])).result).toEqual(discovered);
    expect((await call(server.url(0), 'rpc.discover', [])).result).toMatchObject({ info: { version: '1.5.0' } });
  });

  test('describes every method: positional params with schemas, result and permission', () => {
    const document = buildOpenRpcDocument(allMethods, 1);
    expect(document.openrpc).toBe('1.2.6');
    expect(document.methods.map((m) => m.name).sort()).toEqual(
      allMethods
        .filter((m) => m.apiVersions.includes(1))
        .map((m) => `Ledger.${m.name}`)
        .sort(),
    );
    const sign = document.methods.find((m) => m.name === 'Ledger.WalletSign');
    expect(sign).toMatchObject({
      paramStructure: 'by-position',
      params: [
        { name: 'address', required: true, schema: { title: 'Address' } },
        { name: 'data', required: true, schema: { title: 'Bytes' } },
      ],
      result: { schema: { title: 'Signature' } },
      'x-permission': 'sign',
    });
  });
});
