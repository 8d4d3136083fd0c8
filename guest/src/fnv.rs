//! FNV-1a, 64 bits: a hash that is the same on every host and in every version, for keys the
//! core stores (the embeddings cache) and for maps that must not seed a hasher from the host's
//! randomness (std's `RandomState` would import WASI's random interface).

use std::hash::{BuildHasherDefault, Hasher};

const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const PRIME: u64 = 0x0100_0000_01b3;

/// FNV-1a of `bytes`.
pub fn hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(OFFSET, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME))
}

/// FNV-1a as a [`Hasher`], for `HashMap<K, V, `[`Build`]`>`.
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(OFFSET)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0 = bytes.iter().fold(self.0, |h, b| (h ^ u64::from(*b)).wrapping_mul(PRIME));
    }
}

/// Builds [`Fnv`] hashers: a map keyed by strings, with no seed from the host.
pub type Build = BuildHasherDefault<Fnv>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_is_fnv1a() {
        assert_eq!(hash(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        let mut h = Fnv::default();
        h.write(b"a");
        assert_eq!(h.finish(), hash(b"a"));
    }
}
