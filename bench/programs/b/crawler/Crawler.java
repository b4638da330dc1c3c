package crawler;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/** hedc-like meta-crawler: a synchronized work queue of URLs, a seen set, and a stop flag. */
public class Crawler {
    static final class WorkQueue {
        private final Deque<String> queue = new ArrayDeque<>();
        private final Set<String> seen = new HashSet<>();
        private int inFlight = 0;

        /** Adds the url if it was never seen before. */
        synchronized void submit(String url) {
            if (seen.add(url)) {
                queue.addLast(url);
                notifyAll();
            }
        }

        /** Takes a url, or returns null when there is no work left and nobody can produce more. */
        synchronized String take(AtomicBoolean stop) throws InterruptedException {
            while (queue.isEmpty() && inFlight > 0 && !stop.get()) {
                wait(50);
            }
            if (queue.isEmpty() || stop.get()) {
                notifyAll();
                return null;
            }
            inFlight++;
            return queue.removeFirst();
        }

        synchronized void done() {
            inFlight--;
            notifyAll();
        }

        synchronized int seenCount() { return seen.size(); }
    }

    static final class Results {
        private final List<String> pages = new ArrayList<>();
        synchronized void add(String page) { pages.add(page); }
        synchronized int size() { return pages.size(); }
    }

    private final WorkQueue work = new WorkQueue();
    private final Results results = new Results();
    private final AtomicBoolean stop = new AtomicBoolean(false);
    private final int limit;

    Crawler(int limit) { this.limit = limit; }

    static List<String> fetchLinks(String url) {
        List<String> out = new ArrayList<>();
        int h = Math.abs(url.hashCode());
        for (int i = 0; i < 3; i++) out.add("http://site/" + ((h + i * 7) % 200));
        return out;
    }

    void crawl() {
        try {
            String url;
            while ((url = work.take(stop)) != null) {
                try {
                    for (String link : fetchLinks(url)) {
                        work.submit(link);
                    }
                    results.add(url);
                    if (results.size() >= limit) {
                        stop.set(true);   // idempotent: any thread may request the stop
                    }
                } finally {
                    work.done();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Crawler c = new Crawler(150);
        c.work.submit("http://site/0");
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(c::crawl, "crawler-" + i);
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("pages " + c.results.size() + " seen " + c.work.seenCount());
    }
}
