//! The global allocator: mimalloc, entered by its plain `mi_malloc` wherever that already gives
//! the alignment asked for.
//!
//! The `mimalloc` crate's allocator passes every request to `mi_malloc_aligned`, which first
//! checks that the free block it would hand out happens to be aligned and takes a slower path for
//! blocks over 1 KiB. A replay allocates about 50 times per turn, nearly all with an alignment of
//! 8 or less, and that check cost 4% of course-main's instructions on the issue-13 session
//! (47.6 M → 45.7 M per replay). The rule for when the plain call suffices is the one the
//! standard library's `System` allocator applies to `malloc`: every mimalloc block of 16 bytes or
//! more is 16-byte aligned, and a smaller one is aligned to 8 (`MI_MAX_ALIGN_SIZE` and the
//! two-word size classes of `page-queue.c`), so an alignment of at most 16 that is also at most
//! the size is met by any block of that size.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::{c_int, c_long};
use std::sync::Once;

use libmimalloc_sys as mi;

/// `mi_option_purge_delay`, the sixteenth of mimalloc v3's `mi_option_e` (`include/mimalloc.h`;
/// the `libmimalloc-sys` bindings do not name it): how long freed memory stays with the
/// process before it is handed back to the system, in milliseconds, or -1 for never.
const PURGE_DELAY: c_int = 15;

// SAFETY: both are plain C functions of the mimalloc library `libmimalloc-sys` links, with
// these signatures (`include/mimalloc.h`: `mi_option_set(mi_option_t, long)` and
// `long mi_option_get(mi_option_t)`, `mi_option_t` an enum, so an `int`).
unsafe extern "C" {
    fn mi_option_set(option: c_int, value: c_long);
    fn mi_option_get(option: c_int) -> c_long;
}

/// Keeps the memory of freed blocks with the process instead of handing it back to the system:
/// the next replay reuses it without faulting its pages in again. mimalloc purges
/// (decommits) freed memory after a delay measured on the clock, so a replay's pages were zeroed
/// by the kernel again or not depending on how long the replays before it took: 16 900 page
/// faults in 21 replays of the issue-13 session under course-latest, a fifth of its time
/// (`clear_page_erms`), and 150 without purging. The memory a run holds at its peak is the same
/// either way; it is returned when the process ends. Called before every replay (a check after
/// the first) and by the binary at its start.
pub fn keep_freed_memory() {
    static ONCE: Once = Once::new();
    // SAFETY: setting an option is a word-sized store into mimalloc's option table, which it
    // reads at each purge; -1 is the value its header documents for "no purging at all". The
    // binary sets it before starting any thread; a library caller's first replay may set it
    // while other threads allocate, the same plain store mimalloc makes when it initialises an
    // option lazily on whichever thread first reads it.
    ONCE.call_once(|| unsafe { mi_option_set(PURGE_DELAY, -1) });
}

/// The purge delay mimalloc applies now, in milliseconds (-1: never).
pub fn purge_delay() -> c_long {
    // SAFETY: reading an option is a load from mimalloc's option table.
    unsafe { mi_option_get(PURGE_DELAY) }
}

/// The largest alignment every block `mi_malloc` returns has, given a size at least that large.
const PLAIN_ALIGN: usize = 16;

/// mimalloc, entered by `mi_malloc` and `mi_realloc` when the plain call gives the alignment.
pub(crate) struct Mimalloc;

/// Whether a block of `size` bytes from the plain calls meets `align`.
fn plain(align: usize, size: usize) -> bool {
    align <= PLAIN_ALIGN && align <= size
}

// SAFETY: every method hands the request to mimalloc, whose blocks stay valid until freed; a
// block is returned aligned as `layout` asks, by the plain calls only when `plain` holds (see the
// module's doc) and by the aligned calls otherwise, and every block, however it was obtained, is
// freed by `mi_free`, which accepts them all.
unsafe impl GlobalAlloc for Mimalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: mimalloc's allocation functions take any size and a power-of-two alignment,
        // which a `Layout` is.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_malloc(layout.size()).cast()
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        unsafe {
            if plain(layout.align(), layout.size()) {
                mi::mi_zalloc(layout.size()).cast()
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        // SAFETY: `ptr` came from this allocator (the caller's contract), so from mimalloc.
        unsafe { mi::mi_free(ptr.cast()) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from mimalloc with `layout`; the new block is aligned as `layout`
        // asks, by the same rule as `alloc` applied to the new size.
        unsafe {
            if plain(layout.align(), new_size) {
                mi::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                mi::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every size class from 1 byte to 4 KiB, and every alignment up to 4 KiB, comes back
    /// aligned as asked, by the plain calls and the aligned ones, fresh, zeroed and reallocated.
    #[test]
    fn blocks_are_aligned_as_asked() {
        let allocator = Mimalloc;
        for size in 1..=4096usize {
            for shift in 0..=12 {
                let align = 1usize << shift;
                let layout = Layout::from_size_align(size, align).expect("a valid layout");
                // SAFETY: the layout has a non-zero size; each block is freed once, by this
                // allocator, with the layout it was made with.
                unsafe {
                    let block = allocator.alloc(layout);
                    assert!(!block.is_null());
                    assert_eq!(
                        block as usize % align,
                        0,
                        "alloc {size} bytes, align {align}"
                    );
                    let grown = allocator.realloc(block, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "realloc {size}, align {align}");
                    allocator.dealloc(grown, Layout::from_size_align_unchecked(size * 3, align));
                    let zeroed = allocator.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size}, align {align}");
                    assert!((0..size).all(|at| *zeroed.add(at) == 0));
                    allocator.dealloc(zeroed, layout);
                }
            }
        }
    }

    /// The option set is mimalloc's purge delay: before any replay it holds that option's
    /// default (1 000 ms in mimalloc v3's `options.c`, a value no neighbouring option has), or
    /// -1 when a test that ran first replayed; after, -1. (`MIMALLOC_PURGE_DELAY` in the
    /// environment would change the default.)
    #[test]
    fn freed_memory_is_kept_by_the_purge_delay_option() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert!([1000, -1].contains(&purge_delay()), "{}", purge_delay());
        }
        keep_freed_memory();
        assert_eq!(purge_delay(), -1);
    }

    #[test]
    fn the_plain_calls_are_taken_only_within_their_alignment() {
        assert!(plain(8, 8));
        assert!(plain(16, 16));
        assert!(plain(1, 1));
        // A 16-byte alignment for an 8-byte block: mimalloc's 8-byte class is aligned to 8 only.
        assert!(!plain(16, 8));
        assert!(!plain(32, 64));
    }
}
