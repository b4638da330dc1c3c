package refcountbug;

/**
 * A reader over an on-disk segment whose buffer is shared by all in-flight queries.
 * The buffer is released when the last reference goes away, in the style of the
 * reference-counted table readers of log-structured storage engines.
 */
class SegmentReader {
    private final String name;
    private byte[] buffer;
    private int references = 1; // the owner's reference
    private boolean released;

    SegmentReader(String name, int size) {
        this.name = name;
        this.buffer = new byte[size];
        for (int i = 0; i < size; i++) buffer[i] = (byte) (i & 0x7f);
    }

    /** Takes a reference unless the segment has already been released. */
    boolean tryRef() {
        // BUG: check-then-act: the count is tested in one synchronized call and incremented
        // in another; the last unref can free the buffer in between, and the reference
        // taken afterwards resurrects a released segment.
        if (references() <= 0) {
            return false;
        }
        incrementReferences(); // BUG: acts on the stale check above
        return true;
    }

    /** Drops a reference; the thread that drops the last one frees the buffer. */
    void unref() {
        int current = references();
        if (current <= 0) {
            throw new IllegalStateException("unbalanced unref on " + name);
        }
        // BUG: read-modify-write split over two critical sections: a concurrent tryRef or
        // unref between references() and setReferences() is lost.
        setReferences(current - 1);
        if (current - 1 == 0) {
            freeBuffer(); // BUG: frees based on a stale count; another reader may hold a reference
        }
    }

    /** Reads one byte; the caller must hold a reference. Returns -1 on a freed buffer. */
    synchronized int read(int offset) {
        if (buffer == null) {
            return -1;
        }
        return buffer[offset % buffer.length];
    }

    synchronized int references() { return references; }

    synchronized boolean isReleased() { return released; }

    private synchronized void incrementReferences() { references++; }

    private synchronized void setReferences(int value) { references = value; }

    private synchronized void freeBuffer() {
        buffer = null;
        released = true;
    }

    @Override public String toString() { return "SegmentReader(" + name + ")"; }
}
