package idalloc;

import java.io.IOException;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Hands out unique, increasing ids of one sequence by reserving blocks of
 * {@code blockSize} ids from a shared {@link BlockStore} and serving them from
 * memory, so the store is hit once per block instead of once per id.
 *
 * <p>This class is thread-safe: the current block ({@code next}, {@code limit})
 * is only read and written under a private lock, so no id is ever handed out
 * twice, even across {@link #releaseUnused()} and restarts.
 */
public final class BlockIdAllocator implements AutoCloseable {

    private final BlockStore store;
    private final String sequence;
    private final int blockSize;
    private final ReentrantLock lock = new ReentrantLock();
    private long next; // next id to hand out; guarded by lock
    private long limit; // end (exclusive) of the current block; next == limit means empty; guarded by lock
    private long blocksReserved; // guarded by lock
    private boolean closed; // guarded by lock

    public BlockIdAllocator(BlockStore store, String sequence, int blockSize) {
        if (blockSize <= 0) {
            throw new IllegalArgumentException("blockSize must be positive: " + blockSize);
        }
        this.store = Objects.requireNonNull(store, "store");
        this.sequence = Objects.requireNonNull(sequence, "sequence");
        this.blockSize = blockSize;
    }

    /** Returns a new unique id, reserving a new block from the store when needed. */
    public long nextId() throws IOException {
        lock.lock();
        try {
            ensureOpen();
            if (next == limit) {
                refill();
            }
            return next++;
        } finally {
            lock.unlock();
        }
    }

    /** Returns {@code count} new unique ids (not necessarily contiguous). */
    public long[] nextIds(int count) throws IOException {
        long[] ids = new long[count];
        lock.lock();
        try {
            ensureOpen();
            for (int i = 0; i < count; i++) {
                if (next == limit) {
                    refill();
                }
                ids[i] = next++;
            }
        } finally {
            lock.unlock();
        }
        return ids;
    }

    /** The id the next call to {@link #nextId()} would return if the block is not exhausted. */
    public long peekNextId() {
        lock.lock();
        try {
            return next;
        } finally {
            lock.unlock();
        }
    }

    public long blocksReserved() {
        lock.lock();
        try {
            return blocksReserved;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns the unused rest of the current block to the store (e.g. before a
     * planned shutdown) so that ids are not wasted. Returns the number of ids
     * given back; the next {@link #nextId()} reserves a fresh block.
     */
    public long releaseUnused() throws IOException {
        lock.lock();
        try {
            long from = next;
            long to = limit;
            if (from >= to || !store.release(sequence, from, to)) {
                return 0L;
            }
            next = to; // the current block is now empty
            return to - from;
        } finally {
            lock.unlock();
        }
    }

    /** Gives back unused ids and rejects further allocations. Idempotent. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                releaseUnused();
            }
        } finally {
            lock.unlock();
        }
    }

    // Called with lock held.
    private void refill() throws IOException {
        long start = store.reserve(sequence, blockSize);
        next = start;
        limit = start + blockSize;
        blocksReserved++;
    }

    // Called with lock held.
    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("allocator for sequence '" + sequence + "' is closed");
        }
    }
}
