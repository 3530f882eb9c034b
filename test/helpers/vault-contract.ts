/**
 * A small payable Solidity contract (compiled in the test with solc) for the tests of contracts
 * reached from Filecoin messages (`ledger evm …`, traces): it keeps a number, accepts value, pays
 * value on to any address (an f1 account is reached at its masked ID, FIP-0054), and reverts with a
 * reason.
 */
import { type CompiledContract, compileSolidity, SOLIDITY_HEADER } from '../vm/evm/solidity.js';

export const VAULT_SOURCE = `${SOLIDITY_HEADER}
contract Vault {
  uint256 public stored;
  event Stored(address indexed by, uint256 value);
  receive() external payable {}
  function store(uint256 value) external returns (uint256) {
    stored = value;
    emit Stored(msg.sender, value);
    return value * 2;
  }
  function pay(address payable to) external payable {
    (bool ok, ) = to.call{value: msg.value}("");
    require(ok, "vault: transfer failed");
  }
  function fail() external pure { revert("vault: nope"); }
}
`;

/** The Vault, compiled. */
export function compileVault(): CompiledContract {
  return compileSolidity(VAULT_SOURCE).Vault!;
}
