package refcount;

import java.util.concurrent.atomic.AtomicInteger;

/** Serves point queries against a segment that compaction may replace at any time. */
class QueryWorker extends Thread {
    private final SegmentReader segment;
    private final int queries;
    private final AtomicInteger served;
    final AtomicInteger readAfterFree = new AtomicInteger();

    QueryWorker(String name, SegmentReader segment, int queries, AtomicInteger served) {
        super(name);
        this.segment = segment;
        this.queries = queries;
        this.served = served;
    }

    @Override public void run() {
        for (int q = 0; q < queries; q++) {
            if (!segment.tryRef()) {
                return; // compacted away: the query would go to the new segment
            }
            try {
                if (segment.read(q) < 0) {
                    readAfterFree.incrementAndGet();
                } else {
                    served.incrementAndGet();
                }
            } finally {
                try {
                    segment.unref();
                } catch (IllegalStateException e) {
                    readAfterFree.incrementAndGet(); // reference accounting went wrong
                }
            }
        }
    }
}

/** Drops the owner's reference once compaction has produced a replacement. */
class Compactor extends Thread {
    private final SegmentReader segment;
    private final AtomicInteger served;
    boolean unbalanced;

    Compactor(SegmentReader segment, AtomicInteger served) {
        super("compaction");
        this.segment = segment;
        this.served = served;
    }

    @Override public void run() {
        while (served.get() < 5000 && !segment.isReleased()) {
            Thread.yield(); // the replacement segment is still being written
        }
        try {
            segment.unref();
        } catch (IllegalStateException e) {
            unbalanced = true;
        }
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        SegmentReader segment = new SegmentReader("seg-0001.db", 4096);
        AtomicInteger served = new AtomicInteger();
        QueryWorker w1 = new QueryWorker("read-1", segment, 20000, served);
        QueryWorker w2 = new QueryWorker("read-2", segment, 20000, served);
        Compactor compactor = new Compactor(segment, served);
        w1.start(); w2.start(); compactor.start();
        w1.join(); w2.join(); compactor.join();
        int bad = w1.readAfterFree.get() + w2.readAfterFree.get() + (compactor.unbalanced ? 1 : 0);
        System.out.println("served=" + served.get() + " bad=" + bad + " refs=" + segment.references()
                + " released=" + segment.isReleased() + (bad == 0 && segment.references() == 0 ? " OK" : " FAIL"));
    }
}
