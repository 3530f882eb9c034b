/**
 * Solidity compiled in the test with solc (npm, in process), for Cancun: FEVM v18 runs Cancun
 * without blobs (FIP-0054, FIP-0094). Also the contracts several tests and bench/evm.bench.ts share.
 */
import solc from 'solc';

export interface CompiledContract {
  /** Creation bytecode (initcode). */
  readonly bytecode: Uint8Array;
  readonly abi: unknown[];
}

export function compileSolidity(source: string): Record<string, CompiledContract> {
  const input = {
    language: 'Solidity',
    sources: { 'test.sol': { content: source } },
    settings: {
      evmVersion: 'cancun',
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((error) => error.formattedMessage).join('\n'));
  const contracts: Record<string, CompiledContract> = {};
  for (const [name, contract] of Object.entries(output.contracts['test.sol'] ?? {})) {
    contracts[name] = {
      abi: contract.abi,
      bytecode: Uint8Array.from(Buffer.from(contract.evm.bytecode.object, 'hex')),
    };
  }
  return contracts;
}

export const SOLIDITY_HEADER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
`;

/** A counter (SLOAD/SSTORE, an event, a revert reason, block properties). */
export const COUNTER_CONTRACT = `
contract Counter {
  uint256 public count;
  event Incremented(address indexed by, uint256 count);
  function increment() external returns (uint256) {
    count += 1;
    emit Incremented(msg.sender, count);
    return count;
  }
  function fail() external pure { revert("counter: nope"); }
  function env() external view returns (uint256 chainId, uint256 number, uint256 timestamp, address coinbase,
      uint256 gasLimit, uint256 baseFee, uint256 gasPrice, uint256 prevRandao) {
    return (block.chainid, block.number, block.timestamp, block.coinbase, block.gaslimit, block.basefee,
      tx.gasprice, block.prevrandao);
  }
}
`;

/** A minimal ERC-20 (the transfer the benchmarks time). */
export const ERC20_CONTRACT = `
contract Token {
  mapping(address => uint256) public balanceOf;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
  function transfer(address to, uint256 value) external returns (bool) {
    require(balanceOf[msg.sender] >= value, "insufficient balance");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}
`;
