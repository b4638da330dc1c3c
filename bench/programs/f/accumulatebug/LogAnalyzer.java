package accumulatebug;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Access-log analysis on a thread pool. Each task scans one chunk of log lines
 * and accumulates into a ChunkStats object that only it can see; at the end of
 * the chunk the local figures are merged into the shared totals in one atomic
 * step each: LongAdder.add, AtomicLong.addAndGet, ConcurrentHashMap.merge and a
 * synchronized merge of the two related fields (requests, slowest request).
 * main reads the totals after the pool has terminated.
 */
public class LogAnalyzer {

    /** Task-confined accumulator. */
    static final class ChunkStats {
        long requests;
        long bytes;
        long errors;
        long slowestMs;
        final Map<Integer, Long> byStatus = new TreeMap<>();
    }

    /** Request count and the slowest request seen; updated together. */
    static final class Summary {
        private long requests;
        private long slowestMs;

        synchronized void merge(long moreRequests, long chunkSlowestMs) {
            requests += moreRequests;
            if (chunkSlowestMs > slowestMs) {
                slowestMs = chunkSlowestMs;
            }
        }

        synchronized String describe() {
            return "requests=" + requests + " slowestMs=" + slowestMs;
        }
    }

    private final LongAdder totalBytes = new LongAdder();
    private final AtomicLong totalErrors = new AtomicLong();
    private final ConcurrentHashMap<Integer, Long> statusCounts = new ConcurrentHashMap<>();
    private final Summary summary = new Summary();

    void analyse(List<String> chunk) {
        ChunkStats local = new ChunkStats();
        for (String line : chunk) {
            String[] f = line.split(" ");          // "GET /path status bytes millis"
            int status = Integer.parseInt(f[2]);
            long bytes = Long.parseLong(f[3]);
            long millis = Long.parseLong(f[4]);
            local.requests++;
            local.bytes += bytes;
            if (status >= 500) {
                local.errors++;
            }
            local.slowestMs = Math.max(local.slowestMs, millis);
            local.byStatus.merge(status, 1L, Long::sum);
        }
        totalBytes.add(local.bytes);
        long errorsSoFar = totalErrors.get(); // BUG: shared total read in one atomic operation ...
        totalErrors.set(errorsSoFar + local.errors); // BUG: ... and written back in another; a concurrent chunk's errors are lost
        for (Map.Entry<Integer, Long> e : local.byStatus.entrySet()) {
            statusCounts.merge(e.getKey(), e.getValue(), Long::sum);
        }
        summary.merge(local.requests, local.slowestMs);
    }

    static List<String> makeChunk(int seed, int lines) {
        List<String> chunk = new ArrayList<>(lines);
        int[] statuses = {200, 200, 200, 304, 404, 500, 503};
        for (int i = 0; i < lines; i++) {
            int s = statuses[(i * 31 + seed) % statuses.length];
            chunk.add("GET /item/" + (i % 50) + " " + s + " " + (100 + (i * seed) % 900)
                    + " " + ((i * 17 + seed * 13) % 250));
        }
        return chunk;
    }

    public static void main(String[] args) throws InterruptedException {
        LogAnalyzer analyzer = new LogAnalyzer();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        for (int c = 0; c < 16; c++) {
            final List<String> chunk = makeChunk(c + 1, 500);
            pool.submit(() -> analyzer.analyse(chunk));
        }
        pool.shutdown();
        if (!pool.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("analysis did not finish");
        }
        System.out.println(analyzer.summary.describe() + " bytes=" + analyzer.totalBytes.sum()
                + " errors=" + analyzer.totalErrors.get()
                + " byStatus=" + new TreeMap<>(analyzer.statusCounts));
    }
}
