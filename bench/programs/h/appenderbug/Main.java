package appenderbug;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/** A character sink standing in for a file writer; writing after close fails like a stream. */
class LogSink {
    private final StringBuilder contents = new StringBuilder();
    private boolean open = true;
    private int lines;

    void write(String line) throws IOException {
        if (!open) throw new IOException("Stream closed");
        contents.append(line).append('\n');
        lines++;
    }

    void close() { open = false; }

    int lines() { return lines; }
}

/** One logging event. */
final class LogEvent {
    final String logger;
    final String message;
    final long timestamp;

    LogEvent(String logger, String message, long timestamp) {
        this.logger = logger;
        this.message = message;
        this.timestamp = timestamp;
    }
}

/**
 * A writer-backed appender. Appending after close is legal and silently drops the event,
 * as during shutdown, when the configuration is replaced while application threads log.
 */
class WriterAppender {
    private final ReentrantLock lock = new ReentrantLock();
    private final LogSink sink = new LogSink();
    private boolean closed;
    private int dropped;
    private final AtomicInteger errors = new AtomicInteger();

    /** Formats and writes one event. Formatting is done outside the lock to keep it short. */
    void append(LogEvent event) {
        lock.lock();
        try {
            if (closed) {
                dropped++;
                return;
            }
        } finally {
            lock.unlock();
        }
        // BUG: the closed flag was checked under the lock, then released; close() may run here
        String line = format(event);
        lock.lock();
        try {
            sink.write(line); // BUG: writes to a writer another thread may have closed since the check
        } catch (IOException e) {
            errors.incrementAndGet();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the underlying writer; later events are dropped. */
    void close() {
        lock.lock();
        try {
            if (!closed) {
                closed = true;
                sink.close();
            }
        } finally {
            lock.unlock();
        }
    }

    String report() {
        lock.lock();
        try {
            return "written=" + sink.lines() + " dropped=" + dropped + " errors=" + errors.get();
        } finally {
            lock.unlock();
        }
    }

    int errorCount() { return errors.get(); }

    private static String format(LogEvent e) {
        return e.timestamp + " [" + Thread.currentThread().getName() + "] " + e.logger + " - " + e.message;
    }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        WriterAppender appender = new WriterAppender();
        AtomicInteger logged = new AtomicInteger();
        Runnable app = () -> {
            for (int i = 0; i < 30000; i++) {
                appender.append(new LogEvent("org.example.Handler", "request " + i, i));
                logged.incrementAndGet();
            }
        };
        Thread t1 = new Thread(app, "worker-1");
        Thread t2 = new Thread(app, "worker-2");
        Thread shutdown = new Thread(() -> {
            while (logged.get() < 20000) {
                Thread.yield(); // reconfiguration arrives while the application is busy logging
            }
            appender.close();
        }, "shutdown-hook");
        t1.start(); t2.start(); shutdown.start();
        t1.join(); t2.join(); shutdown.join();
        System.out.println(appender.report() + (appender.errorCount() == 0 ? " OK" : " FAIL"));
    }
}
