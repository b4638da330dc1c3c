package allocvec;

/**
 * Block allocation vector in the style of the IBM ConTest AllocationVector
 * program. Searching for a free block and marking it allocated is done in a
 * single synchronized method, so two threads can never obtain the same block.
 */
final class AllocationVector {
    private static final char FREE = 'F';
    private static final char ALLOCATED = 'A';

    private final char[] vector;
    private int allocatedCount;

    AllocationVector(int size) {
        vector = new char[size];
        for (int i = 0; i < size; i++) {
            vector[i] = FREE;
        }
    }

    /** Finds a free block, marks it allocated and returns its index, or -1 if none is free. */
    synchronized int allocateBlock() {
        int start = (int) (Thread.currentThread().getId() * 7 % vector.length);
        for (int k = 0; k < vector.length; k++) {
            int i = (start + k) % vector.length;
            if (vector[i] == FREE) {
                vector[i] = ALLOCATED;
                allocatedCount++;
                return i;
            }
        }
        return -1;
    }

    synchronized void freeBlock(int index) {
        if (vector[index] == FREE) {
            throw new IllegalStateException("double free of block " + index);
        }
        vector[index] = FREE;
        allocatedCount--;
    }

    synchronized int allocatedCount() {
        return allocatedCount;
    }

    synchronized int countMarked() {
        int n = 0;
        for (char c : vector) {
            if (c == ALLOCATED) {
                n++;
            }
        }
        return n;
    }

    int size() {
        return vector.length;
    }
}
