package refcount;

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

    /**
     * Takes a reference unless the segment has already been released.
     * The test and the increment are one critical section.
     */
    synchronized boolean tryRef() {
        if (references <= 0) {
            return false;
        }
        references++;
        return true;
    }

    /** Drops a reference; the thread that drops the last one frees the buffer. */
    synchronized void unref() {
        if (references <= 0) {
            throw new IllegalStateException("unbalanced unref on " + name);
        }
        references--;
        if (references == 0) {
            freeBuffer();
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

    private void freeBuffer() {
        buffer = null;
        released = true;
    }

    @Override public String toString() { return "SegmentReader(" + name + ")"; }
}
