package stopflag;

/** Workers loop until a synchronized stop flag is set; each iteration does its work in its own critical section. */
public class Service {
    private boolean stopped = false;
    private long processed = 0;
    private long sum = 0;

    synchronized boolean isStopped() { return stopped; }

    synchronized void stop() { stopped = true; }

    synchronized void process(int item) {
        processed++;
        sum += item;
    }

    synchronized String report() { return processed + " items, sum " + sum; }

    public static void main(String[] args) throws InterruptedException {
        Service s = new Service();
        Thread[] ws = new Thread[3];
        for (int i = 0; i < ws.length; i++) {
            final int id = i;
            ws[i] = new Thread(() -> {
                int k = 0;
                while (!s.isStopped()) {
                    s.process(id * 1000 + k++);
                }
            });
            ws[i].start();
        }
        Thread.sleep(20);
        s.stop();
        for (Thread t : ws) t.join();
        System.out.println(s.report());
    }
}
