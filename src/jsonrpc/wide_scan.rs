//! The two block scans that run over every byte of a long text, compiled twice: for the
//! target's baseline (SSE2 on x86-64) and with AVX2, the wider one chosen at run time when
//! the CPU has it and the run is long enough to pay for the choice.
//!
//! - [`clean_blocks`]: how many whole 64-byte blocks need no escape in a JSON string (the
//!   escaper's and the long-frame check's pass over a text);
//! - [`has_byte_up_to_space`]: whether bytes hold whitespace or a control byte (the writer's
//!   test that a result is compact already).
//!
//! The code is the same safe Rust in both builds: only the vector width the compiler may use
//! differs. Measured on this project's 2-core machine, over 64 KiB of ASCII: the clean-block
//! pass takes 0.95 µs with AVX2 against 2.15 µs, the compactness test over 128 KiB 1.14 µs
//! against 2.04 µs (BENCHMARKS.md, "Issue 12, stop 31").

/// Runs shorter than this are scanned by the baseline build: the run-time check (an atomic
/// load and a branch) would cost more than the wider loop saves on them.
const WIDE_FROM_BYTES: usize = 256;

/// How many whole 64-byte blocks at the start of `bytes` hold no byte a JSON string must
/// escape (a quote, a backslash or a control byte below 0x20).
pub(crate) fn clean_blocks(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= WIDE_FROM_BYTES && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), the one requirement of the call.
        return unsafe { clean_blocks_avx2(bytes) };
    }
    clean_blocks_in(bytes)
}

/// Whether `bytes` hold a byte up to the space (0x20): whitespace, or a control byte. Raw
/// JSON without one is compact.
pub(crate) fn has_byte_up_to_space(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if bytes.len() >= WIDE_FROM_BYTES && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above), the one requirement of the call.
        return unsafe { has_byte_up_to_space_avx2(bytes) };
    }
    lowest_byte_up_to_space(bytes)
}

/// Whether `byte` cannot stand as itself in a JSON string: a quote, a backslash or a control.
/// Written with `|`, not `||`, so that a fold over a block has no branch and vectorises.
const fn needs_escape(byte: u8) -> bool {
    (byte < 0x20) | (byte == b'"') | (byte == b'\\')
}

/// [`clean_blocks`], in whatever build it is inlined into: the fold over a block has no
/// branch, so the compiler turns it into vector code of the build's width.
#[inline(always)]
fn clean_blocks_in(bytes: &[u8]) -> usize {
    bytes
        .chunks_exact(64)
        .take_while(|block| {
            !block
                .iter()
                .fold(false, |any, &byte| any | needs_escape(byte))
        })
        .count()
}

/// [`has_byte_up_to_space`] for the baseline build: the lowest byte of each 64-byte block,
/// which measured faster there than the flag fold the AVX2 build uses.
#[inline(always)]
fn lowest_byte_up_to_space(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        if block.iter().fold(u8::MAX, |lowest, &byte| lowest.min(byte)) <= b' ' {
            return true;
        }
    }
    short_run_up_to_space(blocks.remainder())
}

/// [`has_byte_up_to_space`] as one flag per 64-byte block: with AVX2, a compare and an OR
/// per 32 bytes, faster than the lowest byte's reduction.
#[inline(always)]
fn flag_up_to_space(bytes: &[u8]) -> bool {
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        if block.iter().fold(false, |any, &byte| any | (byte <= b' ')) {
            return true;
        }
    }
    short_run_up_to_space(blocks.remainder())
}

/// [`has_byte_up_to_space`] of a run shorter than a block: sixteen bytes at a time (one
/// vector test each), then byte by byte.
#[inline(always)]
fn short_run_up_to_space(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(16);
    for chunk in &mut chunks {
        if chunk.iter().fold(false, |any, &byte| any | (byte <= b' ')) {
            return true;
        }
    }
    chunks.remainder().iter().any(|&byte| byte <= b' ')
}

/// [`clean_blocks_in`] compiled with AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn clean_blocks_avx2(bytes: &[u8]) -> usize {
    clean_blocks_in(bytes)
}

/// [`flag_up_to_space`] compiled with AVX2.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn has_byte_up_to_space_avx2(bytes: &[u8]) -> bool {
    flag_up_to_space(bytes)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Runs of every length up to a few blocks past the threshold, ASCII letters with at
    /// most one byte replaced at any place: each scan, in each build this CPU can run,
    /// against the byte-by-byte definition.
    fn run() -> impl Strategy<Value = Vec<u8>> {
        (
            0usize..WIDE_FROM_BYTES * 3,
            any::<prop::sample::Index>(),
            any::<u8>(),
        )
            .prop_map(|(len, at, byte)| {
                let mut bytes = vec![b'x'; len];
                if len > 0 {
                    bytes[at.index(len)] = byte;
                }
                bytes
            })
    }

    fn clean_blocks_by_byte(bytes: &[u8]) -> usize {
        bytes
            .chunks_exact(64)
            .take_while(|block| !block.iter().any(|&byte| needs_escape(byte)))
            .count()
    }

    proptest! {
        #[test]
        fn every_build_finds_what_a_byte_by_byte_scan_finds(bytes in run()) {
            let clean = clean_blocks_by_byte(&bytes);
            let spaced = bytes.iter().any(|&byte| byte <= b' ');
            prop_assert_eq!(clean_blocks(&bytes), clean);
            prop_assert_eq!(clean_blocks_in(&bytes), clean);
            prop_assert_eq!(has_byte_up_to_space(&bytes), spaced);
            prop_assert_eq!(lowest_byte_up_to_space(&bytes), spaced);
            prop_assert_eq!(flag_up_to_space(&bytes), spaced);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                prop_assert_eq!(unsafe { clean_blocks_avx2(&bytes) }, clean);
                // SAFETY: the CPU has AVX2.
                prop_assert_eq!(unsafe { has_byte_up_to_space_avx2(&bytes) }, spaced);
            }
        }
    }
}
