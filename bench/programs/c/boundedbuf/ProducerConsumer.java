package boundedbuf;

public class ProducerConsumer {
    static final int PRODUCERS = 3;
    static final int CONSUMERS = 3;
    static final int ITEMS_PER_PRODUCER = 2000;
    static final int CAPACITY = 4;

    public static void main(String[] args) throws InterruptedException {
        BoundedBuffer buffer = new BoundedBuffer(CAPACITY);
        int total = PRODUCERS * ITEMS_PER_PRODUCER;
        Producer[] producers = new Producer[PRODUCERS];
        Consumer[] consumers = new Consumer[CONSUMERS];
        for (int i = 0; i < PRODUCERS; i++) {
            producers[i] = new Producer(buffer, i + 1, ITEMS_PER_PRODUCER);
        }
        int base = total / CONSUMERS;
        for (int i = 0; i < CONSUMERS; i++) {
            int quota = (i == CONSUMERS - 1) ? total - base * (CONSUMERS - 1) : base;
            consumers[i] = new Consumer(buffer, i, quota);
        }
        for (Consumer c : consumers) {
            c.start();
        }
        for (Producer p : producers) {
            p.start();
        }
        for (Producer p : producers) {
            p.join();
        }
        for (Consumer c : consumers) {
            c.join();
        }
        long produced = 0, consumed = 0;
        int zeros = 0;
        for (Producer p : producers) {
            produced += p.produced();
        }
        for (Consumer c : consumers) {
            consumed += c.consumed();
            zeros += c.zeros();
        }
        System.out.println("produced=" + produced + " consumed=" + consumed + " emptyTakes=" + zeros
                + " left=" + buffer.size() + (produced == consumed && zeros == 0 ? " VALID" : " BUG FOUND"));
    }
}
