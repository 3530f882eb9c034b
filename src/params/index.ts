export { DEVNET_2K, MAINNET, type MinerPolicy, type NetworkParams } from './network-params.js';
