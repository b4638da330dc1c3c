package hedc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * One user request fanned out to several archives. Each archive task adds its
 * hits under the request monitor and counts down the completion latch.
 */
final class MetaSearchRequest {
    private final String keyword;
    private final List<String> hits = new ArrayList<>();
    private final CountDownLatch remaining;
    private int failedArchives = 0;

    MetaSearchRequest(String keyword, int archives) {
        this.keyword = keyword;
        this.remaining = new CountDownLatch(archives);
    }

    String keyword() {
        return keyword;
    }

    Runnable taskFor(Archive archive) {
        return () -> {
            try {
                List<String> result = archive.query(keyword);
                addHits(result);
            } catch (RuntimeException e) {
                archiveFailed();
            } finally {
                remaining.countDown();
            }
        };
    }

    private synchronized void addHits(List<String> result) {
        hits.addAll(result);
    }

    private synchronized void archiveFailed() {
        failedArchives++;
    }

    /** Waits for all archives, then returns an immutable summary taken in one critical section. */
    String awaitSummary() throws InterruptedException {
        remaining.await();
        synchronized (this) {
            return keyword + ": " + hits.size() + " hits, " + failedArchives + " failed";
        }
    }
}
