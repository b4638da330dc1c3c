package spider;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A jspider/weblech-like crawler. URLs to visit sit in a blocking queue; the
 * visited map records the depth at which each URL was first discovered and is
 * only ever claimed atomically with putIfAbsent.
 */
final class Spider {
    private static final CrawlJob POISON = new CrawlJob(null, -1);

    private final WebSite site;
    private final int maxDepth;
    private final int threads;
    private final BlockingQueue<CrawlJob> queue = new LinkedBlockingQueue<>();
    private final ConcurrentHashMap<String, Integer> discovered = new ConcurrentHashMap<>();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final LongAdder bytes = new LongAdder();
    private final LongAdder fetched = new LongAdder();
    private final LongAdder externalLinks = new LongAdder();

    Spider(WebSite site, int maxDepth, int threads) {
        this.site = site;
        this.maxDepth = maxDepth;
        this.threads = threads;
    }

    private static final class CrawlJob {
        final String url;
        final int depth;

        CrawlJob(String url, int depth) {
            this.url = url;
            this.depth = depth;
        }
    }

    /** Schedules a URL unless some thread already claimed it. */
    private void schedule(String url, int depth) {
        if (depth > maxDepth) {
            return;
        }
        if (discovered.putIfAbsent(url, depth) == null) {
            outstanding.incrementAndGet();
            queue.add(new CrawlJob(url, depth));
        }
    }

    private void finished() {
        if (outstanding.decrementAndGet() == 0) {
            // Nothing is queued or in flight any more: release every worker.
            for (int i = 0; i < threads; i++) {
                queue.add(POISON);
            }
        }
    }

    private final class Worker implements Runnable {
        @Override
        public void run() {
            try {
                while (true) {
                    CrawlJob job = queue.take();
                    if (job == POISON) {
                        return;
                    }
                    try {
                        WebSite.Page page = site.fetch(job.url);
                        fetched.increment();
                        bytes.add(page.size);
                        for (String link : page.links) {
                            if (site.isLocal(link)) {
                                schedule(link, job.depth + 1);
                            } else {
                                externalLinks.increment();
                            }
                        }
                    } finally {
                        finished();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    void crawl() throws InterruptedException {
        schedule(site.root(), 0);
        Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            workers[i] = new Thread(new Worker(), "spider-" + i);
            workers[i].start();
        }
        for (Thread t : workers) {
            t.join();
        }
    }

    long pagesFetched() {
        return fetched.sum();
    }

    int pagesDiscovered() {
        return discovered.size();
    }

    long bytesFetched() {
        return bytes.sum();
    }

    long externalLinks() {
        return externalLinks.sum();
    }
}
