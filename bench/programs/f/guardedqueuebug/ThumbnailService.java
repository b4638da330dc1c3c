package guardedqueuebug;

import java.util.NoSuchElementException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Thumbnail service: upload handlers enqueue uploaded images into a bounded
 * ring buffer guarded by its own monitor (while-loop wait / notifyAll);
 * thumbnailer threads take uploads and scale them outside the monitor. The
 * ring's head index and element count are only read and written together
 * inside one monitor. An upload is immutable and, once taken, belongs to the
 * thumbnailer that took it.
 */
public class ThumbnailService {

    static final class Upload {
        final String user;
        final int tiles;

        Upload(String user, int tiles) {
            this.user = user;
            this.tiles = tiles;
        }
    }

    static final class RingBuffer {
        private final Upload[] slots;
        private int head;
        private int count;
        private boolean closed;

        RingBuffer(int capacity) {
            slots = new Upload[capacity];
        }

        synchronized void put(Upload upload) throws InterruptedException {
            while (count == slots.length) {
                wait();
            }
            slots[(head + count) % slots.length] = upload;
            count++;
            notifyAll();
        }

        /** Blocks until an upload is available; returns null once closed and drained. */
        synchronized Upload take() throws InterruptedException {
            while (count == 0 && !closed) {
                wait();
            }
            if (count == 0) {
                return null;
            }
            return removeHead();
        }

        /** Blocks until an upload is available; returns false once closed and drained. */
        synchronized boolean awaitUpload() throws InterruptedException {
            while (count == 0 && !closed) {
                wait();
            }
            return count > 0;
        }

        /** Removes the head upload; the ring must be non-empty. */
        synchronized Upload removeHead() {
            if (count == 0) {
                throw new NoSuchElementException("queue empty");
            }
            Upload upload = slots[head];
            slots[head] = null;
            head = (head + 1) % slots.length;
            count--;
            notifyAll();
            return upload;
        }

        synchronized void close() {
            closed = true;
            notifyAll();
        }
    }

    static final class Thumbnailer extends Thread {
        private final RingBuffer queue;
        private final AtomicLong tilesDone;
        private final AtomicLong failures;
        private long checksum; // confined to this thread; main reads it after join()

        Thumbnailer(String name, RingBuffer queue, AtomicLong tilesDone, AtomicLong failures) {
            super(name);
            this.queue = queue;
            this.tilesDone = tilesDone;
            this.failures = failures;
        }

        private long scale(Upload upload) {
            long sum = 0;
            for (int tile = 0; tile < upload.tiles; tile++) {
                sum += (upload.user.hashCode() ^ tile) & 0xff;
            }
            return sum;
        }

        @Override
        public void run() {
            while (true) {
                try {
                    if (!queue.awaitUpload()) { // BUG: non-emptiness established in one critical section ...
                        break;
                    }
                    Upload upload = queue.removeHead(); // BUG: ... upload taken in another; a second thumbnailer woken for the same upload finds the queue empty
                    checksum += scale(upload); // outside the monitor: the upload is ours now
                    tilesDone.addAndGet(upload.tiles);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    failures.incrementAndGet(); // log and keep the thumbnailer running
                }
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        RingBuffer queue = new RingBuffer(4);
        AtomicLong tiles = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        Thumbnailer[] thumbnailers = new Thumbnailer[3];
        for (int i = 0; i < thumbnailers.length; i++) {
            thumbnailers[i] = new Thumbnailer("thumbnailer-" + i, queue, tiles, failures);
            thumbnailers[i].start();
        }
        Thread[] uploaders = new Thread[4];
        for (int c = 0; c < uploaders.length; c++) {
            final String user = "user" + c;
            uploaders[c] = new Thread(() -> {
                try {
                    for (int j = 0; j < 500; j++) {
                        queue.put(new Upload(user, 1 + j % 5));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "uploader-" + c);
            uploaders[c].start();
        }
        for (Thread t : uploaders) {
            t.join();
        }
        queue.close();
        long checksum = 0;
        for (Thumbnailer t : thumbnailers) {
            t.join();
            checksum += t.checksum;
        }
        System.out.println("tiles scaled=" + tiles.get() + " (expected 6000) failures=" + failures.get()
                + " checksum=" + checksum);
    }
}
