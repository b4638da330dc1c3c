package asynclog;

/** Several request threads log concurrently through one asynchronous logger. */
public final class LogMain {
    public static void main(String[] args) throws Exception {
        AsyncLogger logger = new AsyncLogger(64, LogRecord.Level.INFO);
        LogRecord.Level[] levels = LogRecord.Level.values();

        Thread[] producers = new Thread[5];
        for (int p = 0; p < producers.length; p++) {
            final int id = p;
            producers[p] = new Thread(() -> {
                try {
                    for (int i = 0; i < 2000; i++) {
                        LogRecord.Level level = levels[(i * 7 + id) % levels.length];
                        logger.log(level, i, "request " + i + " handled in " + (i % 17) + "ms");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "http-" + p);
            producers[p].start();
        }
        for (Thread t : producers) {
            t.join();
        }

        AsyncLogger.Summary s = logger.close();
        System.out.println("enqueued=" + logger.enqueued() + " written=" + s.lines
                + " chars=" + s.chars);
        System.out.println("per level=" + s.perLevel);
    }
}
