export { Amt, type AmtIndex, type AmtOptions, type AmtVersion, buildAmt, MAX_AMT_INDEX } from './amt.js';
export {
  BitField,
  type BitRange,
  bitFieldFromLotusJson,
  bitFieldKind,
  bitFieldToLotusJson,
  decodeBitField,
  encodeBitField,
  MAX_BITFIELD_ENCODED_BYTES,
} from './bitfield.js';
export { type Block, type Blockstore, getBlock, getCbor, putCbor } from './blockstore.js';
export { type CarBlockStream, type CarReadOptions, importCar, readCar, writeCar } from './car.js';
export {
  AmtIndexOutOfRangeError,
  BlockNotFoundError,
  BlockVerificationError,
  CarFormatError,
  HamtMaxDepthError,
  MalformedNodeError,
} from './errors.js';
export { DEFAULT_HAMT_BIT_WIDTH, Hamt, type HamtFormat, type HamtOptions } from './hamt.js';
export { KAMT_KEY_BYTES, Kamt, type KamtConfig, type KamtKeyCodec } from './kamt.js';
export { MemoryBlockstore } from './memory-blockstore.js';
export { digestProblem, verifyBlock } from './verify-block.js';
export { WriteBatch } from './write-batch.js';
