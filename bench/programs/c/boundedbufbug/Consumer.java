package boundedbufbug;

final class Consumer extends Thread {
    private final BoundedBuffer buffer;
    private final int quota;
    private long consumed;
    private int zeros;

    Consumer(BoundedBuffer buffer, int id, int quota) {
        super("consumer-" + id);
        this.buffer = buffer;
        this.quota = quota;
    }

    @Override
    public void run() {
        try {
            for (int i = 0; i < quota; i++) {
                int item = buffer.take();
                if (item == 0) {
                    zeros++; // an empty slot was taken
                }
                consumed += item;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    long consumed() {
        return consumed;
    }

    int zeros() {
        return zeros;
    }
}
