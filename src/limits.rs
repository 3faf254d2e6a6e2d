//! The lab's input limits (issue 11, `docs/limits.md`): one place for every bound a scenario
//! file or a command-line range is checked against before anything is allocated, so that no
//! input can make the lab panic, abort, hang or use more than about 1 GiB.

use std::path::Path;

/// The largest scenario (or shard) file read, in bytes; a longer file (or `/dev/zero`) is
/// refused after reading this much plus one byte.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// The most steps a scenario may have.
pub const MAX_STEPS: usize = 100_000;
/// The largest single tool result, in characters (`chars`, or `lines` × (`width` + 1) − 1);
/// the same cap as the workload generator's.
pub const MAX_RESULT_CHARS: usize = 10_000_000;
/// The most result characters a whole scenario may ask for.
pub const MAX_TOTAL_RESULT_CHARS: usize = 100_000_000;
/// The largest `idle` step, in minutes (about 19 years); with [`MAX_STEPS`] the clock cannot
/// overflow.
pub const MAX_IDLE_MINUTES: usize = 10_000_000;
/// The most points a `sweep` range or a `matrix` axis may have.
pub const MAX_SWEEP_POINTS: usize = 10_000;
/// The largest value a `sweep` or `matrix` may give a size or path-length parameter.
pub const MAX_SWEEP_VALUE: usize = MAX_RESULT_CHARS;
/// The most symbolic links followed when resolving one memory-store name (Linux's own limit).
pub const MAX_SYMLINK_HOPS: usize = 40;

/// The characters a `lines` result renders to, or `None` when that overflows.
pub fn lines_chars(lines: usize, width: usize) -> Option<usize> {
    if lines == 0 {
        return Some(0);
    }
    lines.checked_mul(width.checked_add(1)?)?.checked_sub(1)
}

/// Reads a text file of at most [`MAX_FILE_BYTES`] bytes; a longer one (or an endless
/// device) is an error after that many bytes, never a read until memory runs out.
pub fn read_bounded(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "longer than the limit of {} bytes (docs/limits.md)",
            MAX_FILE_BYTES
        )));
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "starts with a UTF-8 byte order mark; save it without one",
        ));
    }
    String::from_utf8(bytes).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_chars_counts_separators_and_overflow() {
        assert_eq!(lines_chars(2, 3), Some(7));
        assert_eq!(lines_chars(0, 5), Some(0));
        assert_eq!(lines_chars(1, 0), Some(0));
        assert_eq!(lines_chars(usize::MAX, 1), None);
        assert_eq!(lines_chars(2, usize::MAX), None);
    }
}
