//! Thread safety: one device file shared by threads, each with its own
//! stream, and buffers imported and dropped by several threads at once.

use std::os::fd::AsFd;

use weave::{Buffer, Device, Stream, Task};

use crate::util::{crc32c, device, finish, to_bytes, PAGE};

tests!(
    "threads":
    stream_per_thread,
    import_and_drop_race,
);

const THREADS: u32 = 4;

/// What the crate promises about its types, checked when this compiles.
#[allow(dead_code)]
fn promises() {
    fn send_sync<T: Send + Sync>() {}
    fn send<T: Send>() {}
    send_sync::<Device>();
    send_sync::<Buffer>();
    send::<Stream>();
    send::<Task>();
}

/// Each thread, on its own stream of the one file, writes its own input
/// and has the device crc it into its word of a shared result buffer, a
/// few rounds; every word is right each round.
fn stream_per_thread() {
    let dev = device();
    let res = Buffer::new(&dev, PAGE).unwrap();
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            let (dev, res) = (dev.clone(), res.clone());
            scope.spawn(move || {
                let s = Stream::new(&dev).unwrap();
                let src = Buffer::new(&dev, PAGE).unwrap();
                let word = u64::from(t) * 4..u64::from(t) * 4 + 4;
                for round in 0..6u32 {
                    let input: Vec<u32> = (0..1024).map(|i| i ^ (t << 24) ^ round).collect();
                    let bytes = to_bytes(&input);
                    s.enqueue(&[
                        Task::host_write(&src, 0, bytes.clone()),
                        Task::crc32c(src.read(..), res.write(word.clone())),
                    ])
                    .unwrap();
                    finish(&s);
                    let got = res.read_range(word.clone()).unwrap();
                    assert_eq!(
                        got,
                        crc32c(&bytes).to_ne_bytes(),
                        "thread {} round {}",
                        t,
                        round
                    );
                }
            });
        }
    });
    assert_eq!(dev.client_usage().unwrap().streams, 0);
}

/// Threads import one dma-buf over and over while the original buffer is
/// dropped: each import is a working buffer, whatever the order in which
/// other clones of the same handle go.
fn import_and_drop_race() {
    let dev = device();
    let orig = Buffer::new(&dev, PAGE).unwrap();
    let s = Stream::new(&dev).unwrap();
    s.enqueue(&[Task::fill(orig.write(..), 0x600d)]).unwrap();
    finish(&s);
    let fd = orig.export().unwrap();
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            let (dev, fd) = (&dev, &fd);
            scope.spawn(move || {
                for _ in 0..40 {
                    let b = Buffer::import(dev, fd.as_fd()).unwrap();
                    assert_eq!(b.size(), PAGE);
                    assert_eq!(b.read_range(0..4).unwrap(), 0x600du32.to_ne_bytes());
                }
            });
        }
        drop(orig);
    });
    let b = Buffer::import(&dev, fd.as_fd()).unwrap();
    assert_eq!(b.read_range(PAGE - 4..).unwrap(), 0x600du32.to_ne_bytes());
    drop(b);
    drop(fd);
    assert_eq!(crate::util::idle_usage(&dev).bos, 0, "a handle leaked");
}
