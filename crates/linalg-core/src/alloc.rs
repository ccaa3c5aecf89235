//! Allocation of large f64 buffers.
//!
//! Measured on the 2-core development machine (docs/performance.md): touching
//! freshly mapped memory costs 0.5–1 s per GB in 4 KiB page faults, and a
//! zero-filled (`calloc`) buffer that is then overwritten costs 2.5–3 s per
//! GB — more than the BLAS work on it. Transparent huge pages are in
//! `madvise` mode there, so buffers of 16 MiB and more are advised
//! `MADV_HUGEPAGE` before their first touch (0.3 s per GB). Elsewhere the
//! advice is skipped.

/// Buffers at least this large (in bytes) get the huge-page advice.
const HUGE: usize = 16 << 20;

#[cfg(target_os = "linux")]
fn advise_huge(v: &mut Vec<f64>) {
    extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    const MADV_HUGEPAGE: i32 = 14;
    const PAGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<f64>();
    if bytes < HUGE {
        return;
    }
    let start = v.as_mut_ptr() as usize;
    let aligned = (start + PAGE - 1) & !(PAGE - 1);
    let end = (start + bytes) & !(PAGE - 1);
    if end > aligned {
        // SAFETY: the range lies inside the Vec's own allocation; madvise
        // only changes how the kernel backs those pages, never their
        // contents, and its failure (e.g. THP disabled) is harmless.
        unsafe {
            madvise(aligned as *mut std::ffi::c_void, end - aligned, MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge(_v: &mut Vec<f64>) {}

/// A zero-filled vector of `n` entries (huge-page advised when large).
pub(crate) fn zeroed(n: usize) -> Vec<f64> {
    if n * std::mem::size_of::<f64>() < HUGE {
        return vec![0.0; n];
    }
    let mut v = Vec::with_capacity(n);
    advise_huge(&mut v);
    v.resize(n, 0.0);
    v
}

/// Grow `v` to `new_len` entries, the new ones zero, advising huge pages for
/// the grown allocation before the zeros touch it.
pub(crate) fn grow_zeroed(v: &mut Vec<f64>, new_len: usize) {
    if new_len <= v.len() {
        return;
    }
    if new_len * std::mem::size_of::<f64>() >= HUGE && new_len > v.capacity() {
        let mut bigger = Vec::with_capacity(new_len);
        advise_huge(&mut bigger);
        bigger.extend_from_slice(v);
        *v = bigger;
    }
    v.resize(new_len, 0.0);
}

#[cfg(test)]
mod tests {
    #[test]
    fn zeroed_and_grown_buffers_hold_zeros_and_keep_data() {
        for n in [0, 5, (16 << 20) / 8 + 3] {
            let v = super::zeroed(n);
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == 0.0));
        }
        let mut v = vec![1.0, 2.0];
        super::grow_zeroed(&mut v, (16 << 20) / 8 + 10);
        assert_eq!(&v[..3], &[1.0, 2.0, 0.0]);
        assert!(v[2..].iter().all(|&x| x == 0.0));
    }
}
