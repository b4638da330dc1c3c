package philo2;

/** Dijkstra's monitor solution: a philosopher picks up both forks in one critical section and puts both down in one. */
public class Table {
    private final boolean[] fork;
    private final int[] meals;

    Table(int n) {
        fork = new boolean[n];
        meals = new int[n];
    }

    synchronized void pickUp(int i) throws InterruptedException {
        int l = i, r = (i + 1) % fork.length;
        while (fork[l] || fork[r]) wait();
        fork[l] = true;
        fork[r] = true;
    }

    synchronized void putDown(int i) {
        int l = i, r = (i + 1) % fork.length;
        fork[l] = false;
        fork[r] = false;
        meals[i]++;
        notifyAll();
    }

    synchronized int meals(int i) { return meals[i]; }

    public static void main(String[] args) throws InterruptedException {
        int n = 5;
        Table t = new Table(n);
        Thread[] ps = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int id = i;
            ps[i] = new Thread(() -> {
                try {
                    for (int k = 0; k < 200; k++) {
                        t.pickUp(id);
                        Thread.yield();       // eat
                        t.putDown(id);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            ps[i].start();
        }
        int total = 0;
        for (int i = 0; i < n; i++) { ps[i].join(); total += t.meals(i); }
        System.out.println("meals " + total);
    }
}
