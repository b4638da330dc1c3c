package crawler;

import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** A synthetic site: page {@code n} links to a few other pages, computed from its number. */
final class SyntheticWeb {
    static final int PAGES = 400;

    static String url(int page) {
        return "https://example.org/page/" + page;
    }

    /** Downloads a page and extracts its outgoing links. */
    static List<String> fetchLinks(String url) {
        int n = Integer.parseInt(url.substring(url.lastIndexOf('/') + 1));
        return List.of(url((n * 7 + 1) % PAGES), url((n * 13 + 5) % PAGES), url((n + 1) % PAGES), url(n / 2));
    }
}

/**
 * A breadth-first crawler: worker tasks take URLs from the frontier queue, fetch them and
 * enqueue the links they have not seen. {@link Set#add} on the concurrent visited set is the
 * single atomic claim on a URL, so each page is enqueued, and fetched, exactly once.
 */
class Crawler {
    private static final String POISON = "";
    private final Set<String> visited = ConcurrentHashMap.newKeySet();
    private final BlockingQueue<String> frontier = new LinkedBlockingQueue<>();
    private final ConcurrentHashMap<String, Integer> fetchCounts = new ConcurrentHashMap<>();
    private final AtomicInteger pending = new AtomicInteger();
    private final CountDownLatch drained = new CountDownLatch(1);

    /** Adds a URL to the frontier unless it was already discovered. */
    void discover(String url) throws InterruptedException {
        if (visited.add(url)) {
            pending.incrementAndGet();
            frontier.put(url);
        }
    }

    /** The worker loop: runs until it takes the poison pill. */
    Void work() throws InterruptedException {
        while (true) {
            String url = frontier.take();
            if (url.equals(POISON)) {
                return null;
            }
            fetchCounts.merge(url, 1, Integer::sum);
            for (String link : SyntheticWeb.fetchLinks(url)) {
                discover(link);
            }
            if (pending.decrementAndGet() == 0) {
                drained.countDown();
            }
        }
    }

    /** Waits until every discovered page has been fetched, then stops the workers. */
    void awaitDrainedAndStop(int workers) throws InterruptedException {
        drained.await();
        for (int i = 0; i < workers; i++) {
            frontier.put(POISON);
        }
    }

    int pagesSeen() { return visited.size(); }

    int duplicateFetches() {
        int dup = 0;
        for (int count : fetchCounts.values()) {
            dup += count - 1;
        }
        return dup;
    }
}

public class Main {
    private static final int WORKERS = 6;

    public static void main(String[] args) throws Exception {
        Crawler crawler = new Crawler();
        ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
        crawler.discover(SyntheticWeb.url(0));
        for (int i = 0; i < WORKERS; i++) {
            pool.submit(crawler::work);
        }
        crawler.awaitDrainedAndStop(WORKERS);
        pool.shutdown();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        int dup = crawler.duplicateFetches();
        System.out.println("pages=" + crawler.pagesSeen() + " duplicate fetches=" + dup
                + (dup == 0 ? " OK" : " REFETCHED"));
    }
}
