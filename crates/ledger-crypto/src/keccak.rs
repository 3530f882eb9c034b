//! Keccak-256 as Ethereum uses it: the original Keccak padding (`0x01`), not the `0x06` of the
//! standardised SHA3-256 (FIPS 202). Ethereum addresses, transaction hashes and delegated (type 3)
//! signing digests are all Keccak-256 (lotus `lib/sigs/delegated/init.go`, go-keccak
//! `NewLegacyKeccak256`).

use sha3::{Digest, Keccak256};

pub fn keccak256(data: &[u8]) -> [u8; 32] {
    Keccak256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_of(data: &[u8]) -> String {
        hex::encode(keccak256(data))
    }

    #[test]
    fn published_vectors() {
        // The empty input: Ethereum's KECCAK_EMPTY (go-ethereum `crypto.Keccak256Hash(nil)`).
        assert_eq!(
            hex_of(b""),
            "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
        );
        assert_eq!(
            hex_of(b"abc"),
            "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
        );
        assert_eq!(
            hex_of(b"The quick brown fox jumps over the lazy dog"),
            "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15"
        );
        // Ethereum's empty trie root and empty uncle list hash: keccak(rlp("")) and keccak(rlp([])).
        assert_eq!(
            hex_of(&[0x80]),
            "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"
        );
        assert_eq!(
            hex_of(&[0xc0]),
            "1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347"
        );
    }

    #[test]
    fn is_not_sha3_256() {
        // FIPS 202 SHA3-256("") starts a7ffc6f8: the padding differs, so every digest does.
        assert!(!hex_of(b"").starts_with("a7ffc6f8"));
    }

    #[test]
    fn ethereum_mainnet_genesis_block_hash() {
        // A 535-byte input (four 136-byte blocks): the RLP header of Ethereum's mainnet genesis
        // block, whose Keccak-256 is the block hash every client and explorer shows.
        let z32 = "00".repeat(32);
        let empty_trie = "56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";
        let header = [
            "f90214",
            &format!("a0{z32}"),                                                  // parent hash
            "a01dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347", // uncles hash
            &format!("94{}", "00".repeat(20)),                                    // coinbase
            "a0d7f8974fb5ac78d9ac099b9ad5018bedc2ce0a72dad1827a1709da30580f0544", // state root
            &format!("a0{empty_trie}a0{empty_trie}"),                             // tx and receipt roots
            &format!("b90100{}", "00".repeat(256)),                               // logs bloom
            "850400000000",                                                       // difficulty 2^34
            "80",                                                                 // number 0
            "821388",                                                             // gas limit 5000
            "8080",                                                               // gas used, timestamp
            "a011bbe8db4e347b4e8c937c1c8370e4b5ed33adb3db69cbdb7a38e1e50b1b82fa", // extra data
            &format!("a0{z32}"),                                                  // mix hash
            "880000000000000042",                                                 // nonce
        ]
        .concat();
        let header = hex::decode(header).unwrap();
        assert_eq!(header.len(), 535);
        assert_eq!(
            hex_of(&header),
            "d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3"
        );
    }
}
