//! Seeds and draws for the workload generator: child seeds derived from (master seed, label,
//! index) with FNV-1a 64 and splitmix64, both written out here so that the same parameters give
//! the same bytes on every machine and every Rust release (std's hashers promise neither).
//!
//! Each concern of a workload (sizes, tool names, idle gaps, user requests...) draws from its own
//! ChaCha8 stream, and per-turn streams are keyed by the turn index, so changing one parameter
//! (say `--turns`) never reshuffles the values of another (madsim's `sim/runtime/builder.rs`).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// FNV-1a 64 over `bytes`, continuing from `hash`.
fn fnv1a(mut hash: u64, bytes: &[u8]) -> u64 {
    for byte in bytes {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// One step of splitmix64: advances `state` and returns a well-mixed output.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The child seed of `(seed, label, index)`: FNV-1a 64 over the seed (little endian), the label,
/// a 0xff separator and the index, mixed once by splitmix64. Fixed forever: fixtures depend on it.
pub fn child_seed(seed: u64, label: &str, index: u64) -> u64 {
    let mut hash = fnv1a(0xcbf2_9ce4_8422_2325, &seed.to_le_bytes());
    hash = fnv1a(hash, label.as_bytes());
    hash = fnv1a(hash, &[0xff]);
    hash = fnv1a(hash, &index.to_le_bytes());
    splitmix64(&mut hash)
}

/// A ChaCha8 stream for a seed: the 32-byte key is four splitmix64 outputs, little endian.
pub fn stream(seed: u64) -> ChaCha8Rng {
    let mut state = seed;
    let mut key = [0u8; 32];
    for chunk in key.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut state).to_le_bytes());
    }
    ChaCha8Rng::from_seed(key)
}

/// The stream of one concern (`label`) at one index (a turn, or 0 for the whole workload).
pub fn child(seed: u64, label: &str, index: u64) -> ChaCha8Rng {
    stream(child_seed(seed, label, index))
}

/// A uniform draw in `[0, 1)` with 53 random bits.
pub fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// A uniform index below `n` (`n` ≥ 1), by a widening multiply (Lemire, without the rejection
/// step: the bias is below 2^-50 for the small `n` used here).
pub fn below(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

/// True with probability `p`.
pub fn chance(rng: &mut ChaCha8Rng, p: f64) -> bool {
    unit(rng) < p
}

/// An index drawn with the given integer weights (at least one positive).
pub fn weighted(rng: &mut ChaCha8Rng, weights: &[u32]) -> usize {
    let total: u32 = weights.iter().sum();
    let mut pick = below(rng, total as usize) as u32;
    for (index, weight) in weights.iter().enumerate() {
        if pick < *weight {
            return index;
        }
        pick -= weight;
    }
    weights.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv1a(0xcbf2_9ce4_8422_2325, b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(0xcbf2_9ce4_8422_2325, b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(
            fnv1a(0xcbf2_9ce4_8422_2325, b"foobar"),
            0x8594_4171_f739_67e8
        );
    }

    #[test]
    fn child_seeds_are_fixed_and_distinct() {
        assert_eq!(child_seed(1, "sizes", 0), child_seed(1, "sizes", 0));
        let seeds = [
            child_seed(1, "sizes", 0),
            child_seed(1, "sizes", 1),
            child_seed(1, "tools", 0),
            child_seed(2, "sizes", 0),
        ];
        for (i, a) in seeds.iter().enumerate() {
            for b in &seeds[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // Pinned: a change here changes every generated workload and the fixtures.
        assert_eq!(child_seed(1, "candidate", 0), 0x1fe1_7f84_9197_cbb5);
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = child(7, "test", 0);
        for _ in 0..1000 {
            let u = unit(&mut rng);
            assert!((0.0..1.0).contains(&u));
            assert!(below(&mut rng, 5) < 5);
            assert!(weighted(&mut rng, &[0, 3, 0, 1]) % 2 == 1);
        }
    }
}
