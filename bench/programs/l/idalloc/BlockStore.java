package idalloc;

import java.io.IOException;

/**
 * Durable high-water mark of a named sequence (a database row, a ZooKeeper
 * node...). Implementations must be atomic with respect to other processes.
 */
public interface BlockStore {

    /** Atomically advances the high-water mark by {@code size}; returns the first id of the block. */
    long reserve(String sequence, int size) throws IOException;

    /**
     * Gives back the unused ids {@code [from, to)}: if the high-water mark is still
     * {@code to}, it is moved back to {@code from} and {@code true} is returned;
     * otherwise nothing changes and {@code false} is returned.
     */
    boolean release(String sequence, long from, long to) throws IOException;
}
