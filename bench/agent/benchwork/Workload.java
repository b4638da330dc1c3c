package benchwork;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A self-contained multi-threaded workload for bench/agent.sh: producers build text documents
 * and hand them through a blocking queue to workers that tokenize them, count words in a shared
 * concurrent map and in per-worker maps, keep running statistics in a synchronized object and an
 * order book of objects with plain fields, and sort small arrays. It checks its own result
 * (exit 1 on a wrong count), like a test suite would. Usage: {@code Workload THREADS DOCS}.
 */
public final class Workload {
    static final String[] WORDS = {
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
    };

    /** Running statistics behind one lock. */
    static final class Stats {
        private long docs;
        private long words;
        private int longest;

        synchronized void add(int n, int longestWord) {
            docs++;
            words += n;
            if (longestWord > longest) {
                longest = longestWord;
            }
        }

        synchronized long words() {
            return words;
        }

        synchronized long docs() {
            return docs;
        }
    }

    /** An order with plain fields, confined to the worker that made it. */
    static final class Order {
        int qty;
        long price;
        Order next;

        Order(int qty, long price, Order next) {
            this.qty = qty;
            this.price = price;
            this.next = next;
        }
    }

    static String doc(long seed, int words) {
        StringBuilder b = new StringBuilder();
        long x = seed;
        for (int i = 0; i < words; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            b.append(WORDS[(int) ((x >>> 33) % WORDS.length)]).append(' ');
        }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        final int threads = Integer.parseInt(args[0]);
        final int docs = Integer.parseInt(args[1]);
        final int wordsPerDoc = 200;
        final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<>(256);
        final ConcurrentHashMap<String, AtomicLong> counts = new ConcurrentHashMap<>();
        final Stats stats = new Stats();
        final long[] checksums = new long[threads];
        Thread producer = new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    for (int d = 0; d < docs; d++) {
                        queue.put(doc(d, wordsPerDoc));
                    }
                    for (int t = 0; t < threads; t++) {
                        queue.put("");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "producer");
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int id = t;
            workers.add(new Thread(new Runnable() {
                @Override
                public void run() {
                    Map<String, Integer> local = new HashMap<>();
                    Order book = null;
                    long sum = 0;
                    try {
                        while (true) {
                            String text = queue.take();
                            if (text.isEmpty()) {
                                break;
                            }
                            String[] words = text.split(" ");
                            int longest = 0;
                            int[] lengths = new int[words.length];
                            for (int i = 0; i < words.length; i++) {
                                String w = words[i];
                                lengths[i] = w.length();
                                if (w.length() > longest) {
                                    longest = w.length();
                                }
                                Integer c = local.get(w);
                                local.put(w, c == null ? 1 : c + 1);
                                AtomicLong shared = counts.get(w);
                                if (shared == null) {
                                    AtomicLong fresh = new AtomicLong();
                                    shared = counts.putIfAbsent(w, fresh);
                                    if (shared == null) {
                                        shared = fresh;
                                    }
                                }
                                shared.incrementAndGet();
                            }
                            Arrays.sort(lengths);
                            book = new Order(lengths[lengths.length / 2], text.hashCode(), book);
                            Order o = book;
                            int depth = 0;
                            while (o != null && depth < 8) {
                                o.qty += 1;
                                sum += o.qty * o.price;
                                o = o.next;
                                depth++;
                            }
                            stats.add(words.length, longest);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    checksums[id] = sum + local.size();
                }
            }, "worker-" + t));
        }
        long start = System.nanoTime();
        producer.start();
        for (Thread w : workers) {
            w.start();
        }
        producer.join();
        for (Thread w : workers) {
            w.join();
        }
        long total = 0;
        for (AtomicLong c : counts.values()) {
            total += c.get();
        }
        long expected = (long) docs * wordsPerDoc;
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.println("words=" + total + " expected=" + expected + " docs=" + stats.docs() + " ms=" + ms);
        if (total != expected || stats.words() != expected || stats.docs() != docs) {
            System.exit(1);
        }
    }
}
