package allocvecbug;

/** Allocates blocks, releases every other one, then re-allocates; holds its own result list. */
final class AllocThread extends Thread {
    private final AllocationVector vector;
    private final int[] held; // thread-confined until main reads it after join
    private int heldCount;
    private int failures;

    AllocThread(String name, AllocationVector vector, int blocks) {
        super(name);
        this.vector = vector;
        this.held = new int[blocks];
    }

    @Override
    public void run() {
        for (int i = 0; i < held.length; i++) {
            int b = vector.allocateBlock();
            if (b < 0) {
                failures++;
            } else {
                held[heldCount++] = b;
            }
            if ((i & 3) == 0) {
                Thread.yield();
            }
        }
        // release every other block
        int kept = 0;
        for (int i = 0; i < heldCount; i++) {
            if ((i & 1) == 0) {
                vector.freeBlock(held[i]);
            } else {
                held[kept++] = held[i];
            }
        }
        heldCount = kept;
        // re-allocate up to the original amount
        while (heldCount < held.length) {
            int b = vector.allocateBlock();
            if (b < 0) {
                failures++;
                break;
            }
            held[heldCount++] = b;
        }
    }

    int heldCount() {
        return heldCount;
    }

    int heldBlock(int i) {
        return held[i];
    }

    int failures() {
        return failures;
    }
}
