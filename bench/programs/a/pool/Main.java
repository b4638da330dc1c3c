package pool;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/** Sums chunks of an array in a worker pool; each task owns its range; results via futures. */
class ChunkSum implements Callable<Long> {
    private final int[] data; private final int lo, hi;
    private final LongAdder processed;
    ChunkSum(int[] data, int lo, int hi, LongAdder processed) {
        this.data = data; this.lo = lo; this.hi = hi; this.processed = processed;
    }
    public Long call() {
        long s = 0;
        for (int i = lo; i < hi; i++) s += data[i];
        processed.add(hi - lo);
        return s;
    }
}

class Stats {
    private long total;
    private int tasks;
    synchronized void record(long partial) { total += partial; tasks++; }
    synchronized double mean() { return tasks == 0 ? 0 : (double) total / tasks; }
    synchronized long total() { return total; }
}

public class Main {
    public static void main(String[] args) throws InterruptedException, ExecutionException {
        int n = 100_000;
        int[] data = new int[n];
        for (int i = 0; i < n; i++) data[i] = i % 7;
        long expected = 0;
        for (int x : data) expected += x;

        ExecutorService pool = Executors.newFixedThreadPool(4);
        LongAdder processed = new LongAdder();
        List<Future<Long>> fs = new ArrayList<>();
        int chunk = 10_000;
        for (int lo = 0; lo < n; lo += chunk)
            fs.add(pool.submit(new ChunkSum(data, lo, Math.min(n, lo + chunk), processed)));

        Stats stats = new Stats();
        for (Future<Long> f : fs) stats.record(f.get());
        pool.shutdown();

        // a second parallel phase: tasks report into the synchronized Stats directly
        Stats direct = new Stats();
        List<Future<?>> gs = new ArrayList<>();
        for (int lo = 0; lo < n; lo += chunk) {
            ChunkSum cs = new ChunkSum(data, lo, Math.min(n, lo + chunk), processed);
            gs.add(Executors.newSingleThreadExecutor().submit(() -> direct.record(cs.call())));
        }
        for (Future<?> g : gs) g.get();

        boolean ok = stats.total() == expected && direct.total() == expected
            && processed.sum() == 2L * n && stats.mean() == direct.mean();
        System.out.println(ok ? "OK" : "BUG");
        System.exit(0);
    }
}
