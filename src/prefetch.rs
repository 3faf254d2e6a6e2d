//! A hint to the CPU: bring the memory a value lives in into the cache before it is read. A
//! leaf, used where a replay is about to read data scattered over many allocations.

/// Asks the CPU to load the cache line holding the start of `value` into every level of its
/// cache. Reads nothing, cannot fault whatever the address, and changes nothing a program can
/// observe but its speed; on a target other than x86-64 it does nothing.
#[inline(always)]
pub(crate) fn prefetch<T: ?Sized>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that neither reads nor writes memory and never faults, so any
    // address is sound, dangling or not.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(value.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// [`prefetch`] of every cache line `items` spans.
#[inline(always)]
pub(crate) fn prefetch_slice<T>(items: &[T]) {
    const LINE: usize = 64;
    let start = items.as_ptr().cast::<u8>();
    for offset in (0..std::mem::size_of_val(items)).step_by(LINE) {
        prefetch(start.wrapping_add(offset));
    }
}
