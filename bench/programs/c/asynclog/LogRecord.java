package asynclog;

/** Immutable log record, safely handed from producer to writer through the queue. */
final class LogRecord {
    enum Level { DEBUG, INFO, WARN, ERROR }

    final Level level;
    final String thread;
    final long sequence;
    final String message;

    LogRecord(Level level, String thread, long sequence, String message) {
        this.level = level;
        this.thread = thread;
        this.sequence = sequence;
        this.message = message;
    }
}
