export { buildGenesis, type Genesis, genesisTicket, MINER_START_ID } from './build-genesis.js';
export { GenesisError } from './errors.js';
export { exportGenesisCar } from './export-car.js';
export { FILECOIN_GENESIS_BLOCK_BYTES, FILECOIN_GENESIS_CID } from './filecoin-genesis-block.js';
export {
  type GenesisAccount,
  type GenesisActor,
  type GenesisMiner,
  type GenesisMultisig,
  type GenesisPreSeal,
  type GenesisTemplate,
  genesisMinerFromLotusJson,
  genesisTemplateFromLotusJson,
} from './template.js';
