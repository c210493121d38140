//! Helpers the integration tests share: the device, bounded waits, word
//! views of buffers, errno assertions and user-space crc32c.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use weave::{Buffer, ClientUsage, Device, Errno, Error, Stream, Timeout};

/// How long a wait for work that must complete may last before the test
/// fails: a bound on a hang, never a measure of speed.
pub const WAIT: Timeout = Timeout::After(Duration::from_secs(60));

/// The page size buffers are made of.
pub const PAGE: u64 = 4096;

/// A new file of weave device 0.
pub fn device() -> Device {
    Device::open(0).expect("open weave device 0")
}

/// Flushes `stream` and waits for all its work.
pub fn finish(stream: &Stream) {
    stream.flush().expect("flush");
    stream.wait(WAIT).expect("wait");
}

/// The buffer's bytes through a mapping, as native-endian words: what the
/// device wrote, bypassing READ's own wait for writers.
pub fn words(buffer: &Buffer) -> Vec<u32> {
    let map = buffer.map().expect("map");
    let mut bytes = vec![0u8; map.len()];
    map.read(0, &mut bytes).expect("read the mapping");
    to_words(&bytes)
}

/// Native-endian words of bytes.
pub fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Bytes of native-endian words.
pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

/// Asserts that `r` failed with `errno` (a READ's failure report counts
/// as `EIO`).
#[track_caller]
pub fn expect_errno<T: Debug>(r: Result<T, Error>, errno: Errno) {
    match r {
        Err(e) => assert_eq!(e.errno(), errno, "{}", e),
        Ok(v) => panic!("succeeded ({:?}) where {} was expected", v, errno),
    }
}

/// The file's usage once every job of it has been freed, which follows
/// their completion asynchronously; fails after a minute.
pub fn idle_usage(device: &Device) -> ClientUsage {
    let start = Instant::now();
    loop {
        let u = device.client_usage().expect("client usage");
        if u.jobs == 0 && u.pending_tasks == 0 {
            return u;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} jobs and {} tasks still alive",
            u.jobs,
            u.pending_tasks
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// crc32c (Castagnoli, seed !0, final xor !0), as the CRC32C kernel
/// computes it.
pub fn crc32c(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82f6_3b78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}
