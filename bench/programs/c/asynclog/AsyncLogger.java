package asynclog;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * Asynchronous logger: producers put immutable records into a bounded
 * BlockingQueue, a single writer thread drains it into a buffer that only it
 * touches, and close() enqueues a poison pill and collects the writer's
 * summary through a Future.
 */
final class AsyncLogger {
    private static final LogRecord POISON = new LogRecord(LogRecord.Level.DEBUG, "", -1, "");

    private final BlockingQueue<LogRecord> queue;
    private final ExecutorService writerExecutor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "log-writer");
        t.setDaemon(true);
        return t;
    });
    private final Future<Summary> writer;
    private final LongAdder enqueued = new LongAdder();
    private final LogRecord.Level threshold;

    AsyncLogger(int capacity, LogRecord.Level threshold) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.threshold = threshold;
        this.writer = writerExecutor.submit(this::drain);
    }

    void log(LogRecord.Level level, long seq, String message) throws InterruptedException {
        if (level.compareTo(threshold) < 0) {
            return;
        }
        queue.put(new LogRecord(level, Thread.currentThread().getName(), seq, message));
        enqueued.increment();
    }

    /** Runs on the writer thread only; everything it allocates is confined to it. */
    private Summary drain() throws InterruptedException {
        StringBuilder sink = new StringBuilder();
        Map<LogRecord.Level, Integer> perLevel = new EnumMap<>(LogRecord.Level.class);
        int lines = 0;
        long flushedChars = 0;
        while (true) {
            LogRecord r = queue.take();
            if (r == POISON) {
                break;
            }
            sink.append('[').append(r.level).append("] ").append(r.thread)
                .append(" #").append(r.sequence).append(": ").append(r.message).append('\n');
            perLevel.merge(r.level, 1, Integer::sum);
            lines++;
            if (sink.length() > 8192) { // "flush" to the device
                flushedChars += sink.length();
                sink.setLength(0);
            }
        }
        flushedChars += sink.length();
        return new Summary(lines, flushedChars, perLevel);
    }

    /** Must be called after all producers have finished logging. */
    Summary close() throws Exception {
        queue.put(POISON);
        Summary s = writer.get();
        writerExecutor.shutdown();
        return s;
    }

    long enqueued() {
        return enqueued.sum();
    }

    static final class Summary {
        final int lines;
        final long chars;
        final Map<LogRecord.Level, Integer> perLevel;

        Summary(int lines, long chars, Map<LogRecord.Level, Integer> perLevel) {
            this.lines = lines;
            this.chars = chars;
            this.perLevel = perLevel;
        }
    }
}
