import { ACTOR_CODES } from '../../src/state/index.js';
import { Address, encodeCbor, setDefaultNetwork } from '../../src/types/index.js';
import { toBase64 } from '../../src/utils/bytes.js';
import {
  encodeCreateMinerParams,
  encodeParamsFromJson,
  encodeProposeParams,
  InitMethod,
  MinerMethod,
  MultisigMethod,
  PowerMethod,
} from '../../src/vm/index.js';
import { multisigExecJson } from '../helpers/multisig-exec.js';

setDefaultNetwork('t');

const payee = Address.newId(1234n);
const owner = Address.fromString('t1d2xrzcslx7xlbbylc5c3d5lvandqw4iwl6epxba');

describe('--params-json: JSON parameters encoded as the actor reads them', () => {
  test('multisig ProposeParams match the encoder the actor tests use', () => {
    const json = JSON.stringify({ To: 't01234', Value: '3000000000000000000', Method: 0, Params: null });
    expect(encodeParamsFromJson('multisig', MultisigMethod.Propose, json)).toEqual(
      encodeProposeParams(payee, 3_000_000_000_000_000_000n, 0n, new Uint8Array(0)),
    );
    // Go's encoding/json matches field names regardless of case; integers keep every digit.
    const inner = toBase64(new Uint8Array([0x82, 0x01, 0x02]));
    expect(
      encodeParamsFromJson(
        'multisig',
        MultisigMethod.Propose,
        `{"to": "t01234", "value": "1", "method": 18446744073709551615, "params": "${inner}"}`,
      ),
    ).toEqual(encodeProposeParams(payee, 1n, (1n << 64n) - 1n, new Uint8Array([0x82, 0x01, 0x02])));
  });

  test('power CreateMinerParams and init ExecParams (a CID and nested CBOR bytes)', () => {
    const peer = new Uint8Array([1, 2, 3]);
    const json = JSON.stringify({
      Owner: owner.toString(),
      Worker: owner.toString(),
      WindowPoStProofType: 5,
      Peer: toBase64(peer),
      Multiaddrs: [toBase64(new Uint8Array([4, 5]))],
    });
    const expected = encodeCreateMinerParams({
      owner,
      worker: owner,
      windowPoStProofType: 5n,
      peer,
      multiaddrs: [new Uint8Array([4, 5])],
    });
    expect(encodeParamsFromJson('storagepower', PowerMethod.CreateMiner, json)).toEqual(expected);
    expect(encodeParamsFromJson('storagepower', PowerMethod.CreateMinerExported, json)).toEqual(expected);

    const { exec, constructorParams } = multisigExecJson(owner);
    expect(encodeParamsFromJson('init', InitMethod.Exec, exec)).toEqual(
      encodeCbor([ACTOR_CODES.multisig, constructorParams]),
    );
  });

  test('left-out fields take Go zero values; an address has none', () => {
    expect(encodeParamsFromJson('storageminer', MinerMethod.WithdrawBalance, '{}')).toEqual(
      encodeCbor([new Uint8Array(0)]),
    );
    expect(encodeParamsFromJson('multisig', MultisigMethod.Approve, '{"ID": 7}')).toEqual(
      encodeCbor([7n, new Uint8Array(0)]),
    );
    expect(() => encodeParamsFromJson('multisig', MultisigMethod.AddSigner, '{"Increase": true}')).toThrow(
      'AddSignerParams.Signer: expected an address string',
    );
  });

  test('bad input is refused with the field named', () => {
    const propose = (json: string) => () => encodeParamsFromJson('multisig', MultisigMethod.Propose, json);
    expect(propose('{"To": "t01", "Valu": "1"}')).toThrow('ProposeParams has no field Valu');
    expect(propose('{"To": "t01", "Value": 1}')).toThrow('ProposeParams.Value: expected an attoFIL amount');
    expect(propose('{"To": "t01", "Method": "2"}')).toThrow('ProposeParams.Method: expected an integer number');
    expect(propose('{"To": "t01", "Method": -1}')).toThrow('ProposeParams.Method: -1 is out of range');
    expect(propose('{"To": "t01", "Params": "not base64!"}')).toThrow('ProposeParams.Params: expected base64');
    expect(propose('{"To": "x01"}')).toThrow('ProposeParams.To:');
    expect(propose('[1]')).toThrow('ProposeParams: expected a JSON object');
    expect(propose('{"To": ')).toThrow('--params-json is not JSON');
    expect(() => encodeParamsFromJson('account', 0n, '{}')).toThrow(
      'method 0 of the account actor takes no JSON parameters',
    );
  });
});
