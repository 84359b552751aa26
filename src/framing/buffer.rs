//! The input buffer of the line reader.

use std::ops::Range;

/// The storage, in read chunks, that a long partial line needing room grows it to (see
/// [`LineBuffer::make_read_room`]).
const LONG_LINE_CHUNKS: usize = 8;

/// Bytes read from the input and not yet consumed as lines.
///
/// The live bytes are `storage[start..end]`. Consuming a line only moves `start`, so a
/// decoded line can be handed out as a slice without copying; the live bytes are moved to
/// the front only when more room is needed for the next read. The storage grows
/// geometrically, but never beyond the cap the reader passes in, so memory stays bounded by
/// the line limit plus one read chunk.
#[derive(Default)]
pub struct LineBuffer {
    /// Zero-initialised storage; its length is the allocated size.
    storage: Vec<u8>,
    /// Start of the live bytes.
    start: usize,
    /// End of the live bytes.
    end: usize,
}

impl LineBuffer {
    /// An empty buffer. It allocates on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of buffered, unconsumed bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether no unconsumed bytes are buffered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The unconsumed bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.storage[self.start..self.end]
    }

    /// Bytes currently allocated for storage (what memory bounds are about).
    #[must_use]
    pub fn allocated(&self) -> usize {
        self.storage.capacity()
    }

    /// Appends bytes (for feeding a [`LineDecoder`](super::LineDecoder) by hand). Unlike the
    /// reader's own reads, this is not capped.
    pub fn extend_from_slice(&mut self, bytes: &[u8]) {
        let room = self.make_room(bytes.len(), usize::MAX);
        room[..bytes.len()].copy_from_slice(bytes);
        self.end += bytes.len();
    }

    /// Marks the first `count` unconsumed bytes as consumed. Their contents stay in place
    /// until the next read, so slices of them remain valid until then.
    pub(crate) fn consume(&mut self, count: usize) {
        debug_assert!(count <= self.len());
        self.start += count;
    }

    /// The storage bytes in `range` (absolute positions, as returned by the decoder).
    pub(crate) fn slice(&self, range: Range<usize>) -> &[u8] {
        &self.storage[range]
    }

    /// Absolute position of the first unconsumed byte.
    pub(crate) fn start(&self) -> usize {
        self.start
    }

    /// Returns at least `wanted` writable bytes after the live ones (fewer only if `cap` is
    /// reached), moving the live bytes to the front and growing the storage up to `cap` as
    /// needed. Call [`commit`](Self::commit) with the number of bytes written.
    pub(crate) fn make_room(&mut self, wanted: usize, cap: usize) -> &mut [u8] {
        if self.storage.len() - self.end < wanted && self.start > 0 {
            self.storage.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        let needed = self.end.saturating_add(wanted);
        if self.storage.len() < needed {
            let doubled = self.storage.len().saturating_mul(2);
            let target = needed.max(doubled.min(cap)).max(self.end + 1);
            self.storage.reserve_exact(target - self.storage.len());
            self.storage.resize(target, 0);
        }
        let room_end = self.storage.len().min(self.end.saturating_add(wanted));
        &mut self.storage[self.end..room_end]
    }

    /// Room for one read of up to `chunk` bytes. While the live bytes (a partial line left by
    /// the last read) are less than half a chunk, the room tops the buffer up to one chunk
    /// instead of adding a whole chunk after them: a flood of short lines then keeps the storage
    /// at one chunk, where asking for a full chunk behind every leftover partial line doubled it
    /// (and the doubled storage was kept). A longer partial line gets a full chunk, as from
    /// [`make_room`](Self::make_room), so a long line still arrives in chunk-sized reads.
    ///
    /// An empty buffer whose storage grew for an earlier long line is read into whole: a
    /// 64 KiB request sent alone then arrives in one read instead of two. Only an empty one:
    /// a read that fills the storage to its end leaves a partial line there, which the next
    /// read moves to the front, and a pipelined stream of long lines would pay that copy on
    /// every read.
    ///
    /// A long partial line at the end of the storage is moved to the front before the next
    /// read. When lines of about a chunk arrive faster than they are read (a client
    /// pipelining 64 KiB requests), a storage of two chunks moved some 50 KB a line; the
    /// first time a long partial line has to move, the storage grows to
    /// [`LONG_LINE_CHUNKS`] chunks (within `cap`), so it moves once every several lines
    /// (some 7 KB a line: about a line's square over twice the storage).
    pub(crate) fn make_read_room(&mut self, chunk: usize, cap: usize) -> &mut [u8] {
        let live = self.len();
        if live == 0 && self.storage.len() > chunk {
            self.start = 0;
            self.end = 0;
            return &mut self.storage[..];
        }
        let wanted = if live < chunk / 2 {
            chunk - live
        } else {
            chunk
        };
        let roomy = chunk.saturating_mul(LONG_LINE_CHUNKS).min(cap);
        if live >= chunk / 2
            && self.start > 0
            && self.storage.len() - self.end < wanted
            && self.storage.len() < roomy
        {
            self.storage.reserve_exact(roomy - self.storage.len());
            self.storage.resize(roomy, 0);
        }
        self.make_room(wanted, cap)
    }

    /// Marks `count` bytes written into the slice from [`make_room`](Self::make_room) as live.
    pub(crate) fn commit(&mut self, count: usize) {
        self.end += count;
        debug_assert!(self.end <= self.storage.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_leftover_does_not_grow_the_storage_beyond_one_chunk() {
        let mut buffer = LineBuffer::new();
        let room = buffer.make_read_room(1024, usize::MAX);
        assert_eq!(room.len(), 1024);
        room.fill(b'x');
        buffer.commit(1024);
        // All but a 100-byte partial line consumed: the next read tops up to one chunk.
        buffer.consume(924);
        let room = buffer.make_read_room(1024, usize::MAX);
        assert_eq!(room.len(), 924);
        assert_eq!(buffer.allocated(), 1024);
        assert_eq!(
            buffer.as_bytes(),
            &[b'x'; 100][..],
            "the live bytes moved to the front"
        );
    }

    #[test]
    fn a_long_partial_line_still_gets_a_full_chunk() {
        let mut buffer = LineBuffer::new();
        buffer.make_read_room(1024, usize::MAX).fill(b'y');
        buffer.commit(1024);
        buffer.consume(200);
        let room = buffer.make_read_room(1024, usize::MAX);
        assert_eq!(room.len(), 1024, "824 live bytes: a whole chunk after them");
        assert!(buffer.allocated() >= 824 + 1024);
    }

    #[test]
    fn lines_of_about_a_chunk_back_to_back_are_moved_once_every_few_lines() {
        // Lines of a chunk and a little (1,043 bytes + `\n`), arriving faster than they are
        // read: every read fills its room. Count the bytes moved to the front.
        let line = [&[b'a'; 1043][..], b"\n"].concat();
        let input: Vec<u8> = line.iter().copied().cycle().take(line.len() * 40).collect();
        let mut buffer = LineBuffer::new();
        let mut decoder = crate::framing::LineDecoder::new();
        let (mut fed, mut lines, mut moved) = (0, 0, 0);
        while fed < input.len() {
            let before = (buffer.start(), buffer.len());
            let room = buffer.make_read_room(1024, usize::MAX);
            let count = room.len().min(input.len() - fed);
            room[..count].copy_from_slice(&input[fed..fed + count]);
            if before.0 > 0 && buffer.start() == 0 {
                moved += before.1;
            }
            buffer.commit(count);
            fed += count;
            while let Some(got) = decoder.decode(&mut buffer).unwrap() {
                assert_eq!(got, &line[..1043]);
                lines += 1;
            }
        }
        assert_eq!(lines, 40);
        assert!(buffer.allocated() <= 8 * 1024, "{}", buffer.allocated());
        // Two chunks of storage moved most of a line per line (31,096 bytes here; 4,100
        // with eight).
        assert!(moved < 8_000, "{moved} bytes moved for 40 lines");
    }

    #[test]
    fn storage_grown_for_a_long_line_is_read_into_whole() {
        let mut buffer = LineBuffer::new();
        buffer.make_read_room(1024, usize::MAX).fill(b'z');
        buffer.commit(1024);
        // A partial line of a whole chunk: the storage doubles for the next read.
        let room = buffer.make_read_room(1024, usize::MAX);
        assert_eq!(room.len(), 1024);
        buffer.commit(10);
        buffer.consume(1034);
        // Empty again: the next read may fill all 2048 bytes, not only a chunk.
        let room = buffer.make_read_room(1024, usize::MAX);
        assert_eq!(room.len(), 2048);
        room.fill(b'z');
        assert_eq!(buffer.allocated(), 2048);
        // With a partial line left, a read gets a chunk, not the rest of the storage.
        buffer.commit(1500);
        buffer.consume(900);
        let room = buffer.make_read_room(1024, usize::MAX);
        assert_eq!(room.len(), 1024);
    }
}
