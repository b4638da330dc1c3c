package pipeline;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Three-stage log pipeline: reader -> parsers -> aggregator. Mutable Batch
 * objects are handed over through BlockingQueues; after put() the sender never
 * touches a batch again, so each batch is owned by exactly one thread at a time.
 * Each stage stops on a poison pill. Parser and Aggregator are Runnables whose
 * own counters are read by main only after join().
 */
public class LogPipeline {

    static final class Batch {
        final List<String> lines = new ArrayList<>();
        final Map<String, Integer> levelCounts = new HashMap<>();
        int malformed;
    }

    static final Batch POISON = new Batch();

    static final class Parser implements Runnable {
        private final BlockingQueue<Batch> in;
        private final BlockingQueue<Batch> out;
        private int batchesParsed; // own field, read by main after join

        Parser(BlockingQueue<Batch> in, BlockingQueue<Batch> out) {
            this.in = in;
            this.out = out;
        }

        @Override
        public void run() {
            try {
                while (true) {
                    Batch b = in.take();
                    if (b == POISON) {
                        out.put(POISON);
                        return;
                    }
                    for (String line : b.lines) {
                        int sp = line.indexOf(' ');
                        if (sp <= 0) {
                            b.malformed++;
                        } else {
                            b.levelCounts.merge(line.substring(0, sp), 1, Integer::sum);
                        }
                    }
                    batchesParsed++;
                    out.put(b); // ownership passes to the aggregator
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static final class Aggregator implements Runnable {
        private final BlockingQueue<Batch> in;
        private final int producers;
        private final Map<String, Integer> totals = new HashMap<>();
        private int malformed;

        Aggregator(BlockingQueue<Batch> in, int producers) {
            this.in = in;
            this.producers = producers;
        }

        @Override
        public void run() {
            int pills = 0;
            try {
                while (pills < producers) {
                    Batch b = in.take();
                    if (b == POISON) {
                        pills++;
                        continue;
                    }
                    b.levelCounts.forEach((k, v) -> totals.merge(k, v, Integer::sum));
                    malformed += b.malformed;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int parserCount = 3;
        BlockingQueue<Batch> raw = new ArrayBlockingQueue<>(8);
        BlockingQueue<Batch> parsed = new ArrayBlockingQueue<>(8);
        Parser[] parsers = new Parser[parserCount];
        Thread[] parserThreads = new Thread[parserCount];
        for (int i = 0; i < parserCount; i++) {
            parsers[i] = new Parser(raw, parsed);
            parserThreads[i] = new Thread(parsers[i], "parser-" + i);
            parserThreads[i].start();
        }
        Aggregator agg = new Aggregator(parsed, parserCount);
        Thread aggThread = new Thread(agg, "aggregator");
        aggThread.start();

        String[] levels = {"INFO", "WARN", "ERROR", "DEBUG"};
        for (int b = 0; b < 200; b++) {
            Batch batch = new Batch();
            for (int i = 0; i < 50; i++) {
                batch.lines.add(i % 17 == 0 ? "garbage" : levels[(b + i) % 4] + " message " + i);
            }
            raw.put(batch); // main no longer touches batch
        }
        for (int i = 0; i < parserCount; i++) {
            raw.put(POISON);
        }
        for (Thread t : parserThreads) {
            t.join();
        }
        aggThread.join();

        int batches = 0;
        for (Parser p : parsers) {
            batches += p.batchesParsed;
        }
        System.out.println("batches=" + batches + " totals=" + new java.util.TreeMap<>(agg.totals)
                + " malformed=" + agg.malformed);
    }
}
