import { ACTOR_CODES, ACTOR_NAMES, actorCodeCid, actorNameOf } from '../../src/state/index.js';

describe('actor code CIDs', () => {
  test('each is a raw identity CID of fil/18/<name>', () => {
    for (const name of ACTOR_NAMES) {
      const code = ACTOR_CODES[name];
      expect(code.code).toBe(0x55);
      expect(code.multihash.code).toBe(0);
      expect(new TextDecoder().decode(code.multihash.digest)).toBe(`fil/18/${name}`);
      expect(actorNameOf(code)).toBe(name);
    }
    expect(ACTOR_CODES.account.toString()).toBe(actorCodeCid('account', 18).toString());
  });

  test('the Go actors’ v0 and v2 account codes run as accounts; other codes are not ours', () => {
    expect(actorNameOf(actorCodeCid('account', 1))).toBe('account');
    expect(actorNameOf(actorCodeCid('account', 2))).toBe('account');
    expect(actorNameOf(actorCodeCid('storageminer', 2))).toBeUndefined();
    // The EVM and the EAM are ours now (issue 22); the market actor is not.
    expect(actorNameOf(actorCodeCid('storagemarket'))).toBeUndefined();
    expect(actorNameOf(actorCodeCid('evm'))).toBe('evm');
  });
});
