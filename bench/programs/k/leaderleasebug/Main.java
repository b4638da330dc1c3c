package leaderleasebug;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

public final class Main {
    /** Storage that only accepts writes from the newest epoch it has seen. */
    static final class FencedStore {
        private long highestEpoch;     // guarded by this
        private String epochOwner;     // guarded by this
        private long accepted, rejected, splitBrain;

        synchronized boolean write(long epoch, String node) {
            if (epoch < highestEpoch) {
                rejected++;            // deposed leader, fenced off
                return false;
            }
            if (epoch == highestEpoch && !node.equals(epochOwner)) {
                splitBrain++;          // two leaders share one epoch
            }
            highestEpoch = epoch;
            epochOwner = node;
            accepted++;
            return true;
        }

        synchronized String summary() {
            return "accepted=" + accepted + " fenced=" + rejected + " splitBrain=" + splitBrain;
        }
    }

    public static void main(String[] args) throws Exception {
        LeaseTracker tracker = new LeaseTracker(1, TimeUnit.MILLISECONDS);
        FencedStore store = new FencedStore();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        List<Callable<Integer>> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String name = "node-" + i;
            nodes.add(() -> {
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                LeaseTracker.Lease mine = null;
                int terms = 0;
                while (System.nanoTime() < deadline) {
                    if (mine == null) {
                        mine = tracker.tryAcquire(name);
                        if (mine == null) {
                            Thread.onSpinWait();
                            continue;
                        }
                        terms++;
                    }
                    store.write(mine.epoch(), name);
                    if (rnd.nextInt(40) == 0) {
                        Thread.sleep(2); // GC-like pause: lease expires underneath us
                    }
                    if (rnd.nextInt(25) == 0) {
                        tracker.release(mine);
                        mine = null;
                    } else {
                        mine = tracker.heartbeat(mine);
                    }
                }
                return terms;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(nodes.size());
        int terms = 0;
        for (Future<Integer> f : pool.invokeAll(nodes)) {
            terms += f.get();
        }
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        System.out.println("grants=" + tracker.grants() + " terms=" + terms
                + " epoch=" + tracker.currentEpoch() + " " + store.summary());
    }
}
