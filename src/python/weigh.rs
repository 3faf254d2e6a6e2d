//! Byte sums and byte runs in bulk. Every length the lab reads off a text (`json.dumps`',
//! `repr`'s, JavaScript's, its characters, UTF-16 units and newlines) is a sum of a small weight
//! per byte, and writing a text as JSON copies the runs of bytes that need no escape; a replay
//! reads megabytes of text this way (issue 13: a tenth of Claude Code's and Gemini CLI's
//! replays, a fifth of Codex's).
//!
//! Both are plain Rust that the compiler vectorises. On x86-64 a second copy is compiled for
//! AVX2 and taken when the CPU has it: baseline x86-64 offers 16-byte vectors without unsigned
//! compares, and a byte's weight cost twice the instructions there. Both copies run the same
//! integer arithmetic, so the result is the same on every machine; the tests check both.

/// The sum of `weight` over `bytes`, each byte's weight at most `255 / N`.
///
/// `N` bytes at a time are summed in one byte, which vectorises: a string costs about a memory
/// scan however many of its characters need escaping (a file's text has one at every line).
/// What is left after the last whole chunk is weighed as one more chunk padded with spaces,
/// whose weight is taken off again, so that a short string (an id, a key, a name) costs one
/// chunk too.
#[inline]
pub(crate) fn weigh<const N: usize>(bytes: &[u8], weight: impl Fn(u8) -> u8 + Copy) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `weigh_avx2` is compiled for AVX2 and nothing more, and this CPU has AVX2.
        return unsafe { weigh_avx2::<N>(bytes, weight) };
    }
    weigh_chunks::<N>(bytes, weight)
}

/// [`weigh_chunks`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn weigh_avx2<const N: usize>(bytes: &[u8], weight: impl Fn(u8) -> u8 + Copy) -> usize {
    weigh_chunks::<N>(bytes, weight)
}

/// [`weigh`] for any CPU: inlined into each caller, so that it is compiled for the caller's
/// target features.
#[inline(always)]
fn weigh_chunks<const N: usize>(bytes: &[u8], weight: impl Fn(u8) -> u8 + Copy) -> usize {
    // A fold in one byte per chunk, not byte-wide sums kept across chunks and added up later:
    // for some weights the compiler then vectorised across chunks, gathering a byte at a time.
    let weigh_chunk = |chunk: &[u8]| {
        usize::from(
            chunk
                .iter()
                .fold(0u8, |sum, &b| sum.wrapping_add(weight(b))),
        )
    };
    let chunks = bytes.chunks_exact(N);
    let rest = chunks.remainder();
    let total: usize = chunks.map(weigh_chunk).sum();
    let mut padded = [b' '; N];
    padded[..rest.len()].copy_from_slice(rest);
    let padding = (N - rest.len()) * usize::from(weight(b' '));
    total + weigh_chunk(&padded) - padding
}

/// Length of the leading run of bytes `plain` accepts.
#[inline]
pub(crate) fn plain_run(bytes: &[u8], plain: impl Fn(u8) -> bool + Copy) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: `plain_run_avx2` is compiled for AVX2 and nothing more, and this CPU has AVX2.
        return unsafe { plain_run_avx2(bytes, plain) };
    }
    plain_run_chunks(bytes, plain)
}

/// [`plain_run_chunks`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn plain_run_avx2(bytes: &[u8], plain: impl Fn(u8) -> bool + Copy) -> usize {
    plain_run_chunks(bytes, plain)
}

/// [`plain_run`] for any CPU, inlined into each caller like [`weigh_chunks`].
#[inline(always)]
fn plain_run_chunks(bytes: &[u8], plain: impl Fn(u8) -> bool + Copy) -> usize {
    // `fold` with `&` rather than `all`: no early exit, so a chunk's test vectorises. Long
    // strings go 32 bytes at a time; the rest, and short strings (ids, keys, names, most of
    // the strings of a message), 8 at a time, then byte by byte.
    let run = plain_chunks::<32>(bytes, plain);
    let run = run + plain_chunks::<8>(&bytes[run..], plain);
    run + bytes[run..].iter().take_while(|&&b| plain(b)).count()
}

/// Length of the leading run of whole `N`-byte chunks that `plain` accepts throughout.
#[inline(always)]
fn plain_chunks<const N: usize>(bytes: &[u8], plain: impl Fn(u8) -> bool + Copy) -> usize {
    let mut run = 0;
    for chunk in bytes.chunks_exact(N) {
        if !chunk.iter().fold(true, |ok, &b| ok & plain(b)) {
            break;
        }
        run += N;
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A weight's name, the most it gives a byte, and the weight.
    type Weight = (&'static str, u8, fn(u8) -> u8);

    /// Weights of every size a caller uses, with the most each weighs: a newline (1), a
    /// character's UTF-16 units (2), and two that reach `json.dumps`' (6) and its ASCII
    /// dialect's (12).
    fn weights() -> [Weight; 4] {
        [
            ("newline", 1, |b| u8::from(b == b'\n')),
            ("utf16", 2, |b| {
                u8::from(b & 0xc0 != 0x80) + u8::from(b >= 0xf0)
            }),
            ("six", 6, |b| b % 7),
            ("twelve", 12, |b| b % 13),
        ]
    }

    /// Lengths at and around whole chunks of every size the callers use (16 to 128 bytes).
    fn lengths() -> Vec<usize> {
        let mut out = vec![0, 1, 2, 1000];
        for chunks in [1, 2, 3, 8] {
            out.extend([16 * chunks - 1, 16 * chunks, 16 * chunks + 1]);
            out.extend([128 * chunks - 1, 128 * chunks, 128 * chunks + 1]);
        }
        out
    }

    /// Every byte value at every position, and texts of one byte: of the heaviest (a chunk of
    /// it sums to the most one byte holds), of a space (the padding's) and of a newline.
    fn texts() -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for len in lengths() {
            out.push((0..len).map(|i| (i * 37 % 256) as u8).collect());
            for byte in [b'\n', b' ', 6, 12, 0xf0] {
                out.push(vec![byte; len]);
            }
        }
        out
    }

    /// Both copies against a sum byte by byte, for the weights `N` allows.
    fn check<const N: usize>() {
        for text in texts() {
            for (name, most, weight) in weights() {
                if usize::from(most) * N > 255 {
                    continue;
                }
                let expected: usize = text.iter().map(|&b| usize::from(weight(b))).sum();
                let len = text.len();
                assert_eq!(
                    weigh_chunks::<N>(&text, weight),
                    expected,
                    "{name} {N} {len}"
                );
                assert_eq!(weigh::<N>(&text, weight), expected, "{name} {N} {len}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked above.
                    let avx2 = unsafe { weigh_avx2::<N>(&text, weight) };
                    assert_eq!(avx2, expected, "{name} {N} {len} (AVX2)");
                }
            }
        }
    }

    #[test]
    fn each_copy_sums_every_byte_once() {
        check::<16>();
        check::<32>();
        check::<64>();
        check::<128>();
    }

    /// Both copies of the run find where a byte-by-byte scan stops: at every position of a
    /// chunk of 32 and of 8, and at none.
    #[test]
    fn a_plain_run_ends_at_the_first_byte_refused() {
        let plain = |b: u8| b >= 0x20 && b != b'"';
        for len in lengths() {
            for stop in (0..=len).step_by(7).chain([len]) {
                let mut text = vec![b'a'; len];
                if let Some(b) = text.get_mut(stop) {
                    *b = b'"';
                }
                let expected = text.iter().take_while(|&&b| plain(b)).count();
                assert_eq!(plain_run_chunks(&text, plain), expected, "{len} {stop}");
                assert_eq!(plain_run(&text, plain), expected, "{len} {stop}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2, checked above.
                    let avx2 = unsafe { plain_run_avx2(&text, plain) };
                    assert_eq!(avx2, expected, "{len} {stop} (AVX2)");
                }
            }
        }
    }
}
