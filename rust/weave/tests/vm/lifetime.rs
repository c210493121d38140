//! Drop order: buffers, streams, graphs and devices dropped while work
//! that uses them is queued or in flight; the work completes, and the
//! file's usage comes back to where it was, with nothing leaked.

use weave::{Buffer, Stream, Task};

use crate::util::{device, finish, idle_usage, to_bytes, words, PAGE, WAIT};

tests!(
    "lifetime":
    buffer_dropped_while_queued,
    stream_dropped_with_queued_work,
    graph_dropped_after_replay,
    device_outlived_by_buffer,
);

/// A buffer whose last handle is dropped while a task that writes it and
/// one that reads it are queued: both tasks complete, and once the jobs
/// are freed the file holds no more buffers, bytes or tasks than before.
fn buffer_dropped_while_queued() {
    let dev = device();
    let base = idle_usage(&dev);
    let out = Buffer::new(&dev, PAGE).unwrap();
    let s = Stream::new(&dev).unwrap();
    {
        let tmp = Buffer::new(&dev, 4 * PAGE).unwrap();
        s.enqueue(&[
            Task::fill(tmp.write(..), 0x0d0d_0d0d),
            Task::copy(tmp.read(0..PAGE), out.write(..)),
        ])
        .unwrap();
        assert_eq!(dev.client_usage().unwrap().bos, base.bos + 2);
    }
    // The file has no handle to tmp now, but the queued tasks hold it.
    let held = dev.client_usage().unwrap();
    assert_eq!(held.bos, base.bos + 2, "the queued tasks lost their buffer");
    assert_eq!(held.queued_tasks, 2);
    finish(&s);
    assert!(words(&out).iter().all(|&w| w == 0x0d0d_0d0d));
    drop(out);
    drop(s);
    let after = idle_usage(&dev);
    assert_eq!(after.bos, base.bos, "a buffer leaked");
    assert_eq!(after.bo_bytes, base.bo_bytes);
    assert_eq!(after.streams, base.streams);
    assert_eq!(after.staged_bytes, 0);
    assert_eq!(after.failure_records, base.failure_records);
}

/// A stream dropped with tasks queued and not flushed: the drop executes
/// them, and READ sees their result.
fn stream_dropped_with_queued_work() {
    let dev = device();
    let base = idle_usage(&dev);
    let a = Buffer::new(&dev, PAGE).unwrap();
    {
        let s = Stream::new(&dev).unwrap();
        s.enqueue(&[
            Task::host_write(&a, 0, to_bytes(&[1, 2, 3, 4])),
            Task::add_u32(a.read(0..16), a.read(0..16), a.write(16..32)),
        ])
        .unwrap();
        assert_eq!(dev.client_usage().unwrap().streams, base.streams + 1);
    }
    assert_eq!(
        a.read_range(0..32).unwrap(),
        to_bytes(&[1, 2, 3, 4, 2, 4, 6, 8])
    );
    let after = idle_usage(&dev);
    assert_eq!(after.streams, base.streams);
    assert_eq!(after.queued_tasks, 0);
}

/// A graph dropped right after its replay is flushed: the replay still
/// completes; the dropped graph's buffers go with their last user.
fn graph_dropped_after_replay() {
    let dev = device();
    let base = idle_usage(&dev);
    let s = Stream::new(&dev).unwrap();
    let out = Buffer::new(&dev, PAGE).unwrap();
    {
        let a = Buffer::new(&dev, PAGE).unwrap();
        s.enqueue(&[Task::fill(a.write(..), 12)]).unwrap();
        finish(&s);
        s.begin_capture().unwrap();
        s.enqueue(&[Task::copy(a.read(..), out.write(..))]).unwrap();
        let g = s.end_capture().unwrap();
        drop(a);
        g.replay(&s).unwrap();
    }
    s.wait(WAIT).unwrap();
    assert!(words(&out).iter().all(|&w| w == 12));
    drop(out);
    let after = idle_usage(&dev);
    assert_eq!(after.bos, base.bos, "the graph's buffer leaked");
}

/// Buffers and streams keep their device file open: with every Device
/// value dropped, they still work.
fn device_outlived_by_buffer() {
    let (a, s) = {
        let dev = device();
        (Buffer::new(&dev, PAGE).unwrap(), Stream::new(&dev).unwrap())
    };
    s.enqueue(&[Task::fill(a.write(..), 77)]).unwrap();
    finish(&s);
    assert_eq!(a.read_range(0..4).unwrap(), 77u32.to_ne_bytes());
    assert!(a.device().same_file(s.device()));
}
