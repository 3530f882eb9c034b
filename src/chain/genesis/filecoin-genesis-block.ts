/**
 * The "Filecoin genesis" block every Filecoin genesis header names as its parent (Lotus
 * `chain/gen/genesis/genblock.go`): a small DAG-CBOR map (the 2017 token allocation message),
 * addressed by a sha2-256 CID. Lotus stores it next to the genesis; so do we.
 */
import { CID } from 'multiformats/cid';
import { fromHex } from '../../utils/bytes.js';

export const FILECOIN_GENESIS_BLOCK_BYTES = fromHex(
  'a5684461746574696d6573323031372d30352d30352030313a32373a3531674e6574776f726b6846696c65636f696e65546f6b656e' +
    '6846696c65636f696e6c546f6b656e416d6f756e7473a36b546f74616c537570706c796d322c3030302c3030302c303030664d696e' +
    '6572736d312c3430302c3030302c3030306c50726f746f636f6c4c616273a36b446576656c6f706d656e746b3330302c3030302c30' +
    '30306b46756e6472616973696e676b3230302c3030302c3030306a466f756e646174696f6e6b3130302c3030302c303030674d6573' +
    '73616765784854686973206973207468652047656e6573697320426c6f636b206f66207468652046696c65636f696e2044656365' +
    '6e7472616c697a65642053746f72616765204e6574776f726b2e',
);

export const FILECOIN_GENESIS_CID = CID.parse('bafyreiaqpwbbyjo4a42saasj36kkrpv4tsherf2e7bvezkert2a7dhonoi');
