/**
 * A small Solidity contract the Ethereum JSON-RPC tests deploy (compiled in the test with solc):
 * a counter whose increments emit an event with two indexed topics and a string in the data, a
 * call that reverts with a reason, and a loop that burns gas.
 */
import { type CompiledContract, compileSolidity } from '../vm/evm/solidity.js';

export const COUNTER_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

contract Counter {
  uint256 public count;
  event Incremented(address indexed by, uint256 indexed count, string note);
  function increment(string calldata note) external returns (uint256) {
    count += 1;
    emit Incremented(msg.sender, count, note);
    return count;
  }
  function fail() external pure { revert("counter: nope"); }
  function burn(uint256 rounds) external returns (uint256 acc) {
    for (uint256 i = 0; i < rounds; i++) acc = uint256(keccak256(abi.encode(acc, i)));
  }
}

contract Relay {
  /** Gives the counter half the gas left: enough when the call has ample gas, not with what it uses. */
  function burnWithHalf(Counter counter, uint256 rounds) external {
    (bool ok, ) = address(counter).call{gas: gasleft() / 2}(abi.encodeCall(Counter.burn, (rounds)));
    require(ok, "relay: the call ran out of gas");
  }
}
`;

/** The Counter, compiled. */
export function compileCounter(): CompiledContract {
  return compileSolidity(COUNTER_SOURCE).Counter!;
}

/** The Relay (calls a Counter with half its gas), compiled. */
export function compileRelay(): CompiledContract {
  return compileSolidity(COUNTER_SOURCE).Relay!;
}
