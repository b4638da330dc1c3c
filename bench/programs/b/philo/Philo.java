package philo;

/** Dining philosophers; deadlock is avoided by always taking the lower-numbered fork first. */
public class Philo implements Runnable {
    static final class Fork {
        final int id;
        private int uses;
        Fork(int id) { this.id = id; }
        void use() { uses++; }     // called with this fork's monitor held
        int uses() { synchronized (this) { return uses; } }
    }

    private final int id;
    private final Fork first;
    private final Fork second;
    private final int meals;
    private int eaten;

    Philo(int id, Fork left, Fork right, int meals) {
        this.id = id;
        this.first = left.id < right.id ? left : right;
        this.second = left.id < right.id ? right : left;
        this.meals = meals;
    }

    @Override
    public void run() {
        for (int i = 0; i < meals; i++) {
            think();
            synchronized (first) {
                synchronized (second) {
                    first.use();
                    second.use();
                    eaten++;
                }
            }
        }
    }

    private void think() {
        Thread.yield();
    }

    public static void main(String[] args) throws InterruptedException {
        int n = 5;
        Fork[] forks = new Fork[n];
        for (int i = 0; i < n; i++) forks[i] = new Fork(i);
        Philo[] ps = new Philo[n];
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ps[i] = new Philo(i, forks[i], forks[(i + 1) % n], 1000);
            ts[i] = new Thread(ps[i], "philo-" + i);
            ts[i].start();
        }
        int total = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            total += ps[i].eaten;
        }
        int uses = 0;
        for (Fork f : forks) uses += f.uses();
        System.out.println("meals " + total + " fork uses " + uses);
    }
}
