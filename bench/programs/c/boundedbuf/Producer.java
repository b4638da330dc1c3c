package boundedbuf;

final class Producer extends Thread {
    private final BoundedBuffer buffer;
    private final int id;
    private final int count;
    private long produced; // read by main after join

    Producer(BoundedBuffer buffer, int id, int count) {
        super("producer-" + id);
        this.buffer = buffer;
        this.id = id;
        this.count = count;
    }

    @Override
    public void run() {
        try {
            for (int i = 1; i <= count; i++) {
                int item = id * 100000 + i;
                buffer.put(item);
                produced += item;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    long produced() {
        return produced;
    }
}
