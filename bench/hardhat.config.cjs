// The in-process Hardhat network bench/evm.bench.ts sends its ERC-20 transfers to (hardhat 2.x,
// hardhat.org/hardhat-network/docs/reference#config): the devnet's chain id, so that the same
// signed raw transactions are valid on both; Cancun, as FEVM runs it (FIP-0054, FIP-0094);
// FEVM's block gas limit, since FEVM gas limits are in FVM gas; one block per transaction.
// The sender is Hardhat's first default account (its key is public: the "test test … junk" mnemonic).
module.exports = {
  networks: {
    hardhat: {
      chainId: 31415926,
      hardfork: 'cancun',
      blockGasLimit: 10_000_000_000,
      initialBaseFeePerGas: 100,
      mining: { auto: true },
      loggingEnabled: false,
    },
  },
};
