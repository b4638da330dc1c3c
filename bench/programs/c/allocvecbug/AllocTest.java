package allocvecbug;

public class AllocTest {
    static final int VECTOR_SIZE = 400;
    static final int THREADS = 4;
    static final int BLOCKS_PER_THREAD = 90;

    public static void main(String[] args) throws InterruptedException {
        AllocationVector vector = new AllocationVector(VECTOR_SIZE);
        AllocThread[] threads = new AllocThread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            threads[t] = new AllocThread("alloc-" + t, vector, BLOCKS_PER_THREAD);
        }
        for (AllocThread t : threads) {
            t.start();
        }
        for (AllocThread t : threads) {
            t.join();
        }

        int[] owner = new int[VECTOR_SIZE];
        java.util.Arrays.fill(owner, -1);
        int duplicates = 0, held = 0, failures = 0;
        for (int t = 0; t < THREADS; t++) {
            failures += threads[t].failures();
            for (int i = 0; i < threads[t].heldCount(); i++) {
                int b = threads[t].heldBlock(i);
                held++;
                if (owner[b] != -1) {
                    duplicates++;
                    System.out.println("block " + b + " owned by both thread " + owner[b] + " and " + t);
                }
                owner[b] = t;
            }
        }
        int marked = vector.countMarked();
        boolean ok = duplicates == 0 && marked == held && vector.allocatedCount() == held;
        System.out.println("held=" + held + " marked=" + marked + " duplicates=" + duplicates
                + " failures=" + failures + (ok ? " VALID" : " BUG FOUND"));
    }
}
