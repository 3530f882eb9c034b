export { DEVNET_2K, MAINNET, type NetworkParams } from './network-params.js';
