package coord;

/** Artho et al.'s coordinate pair, correct variant: x and y are always read and written together. */
public class Coord {
    private int x, y;

    synchronized void set(int nx, int ny) { x = nx; y = ny; }

    synchronized void move(int dx, int dy) { x += dx; y += dy; }

    synchronized int[] get() { return new int[] {x, y}; }

    synchronized void swap() {
        int t = x;
        x = y;
        y = t;
    }

    double distance() {
        int[] p = get();           // one consistent snapshot of both coordinates
        return Math.sqrt((double) p[0] * p[0] + (double) p[1] * p[1]);
    }

    public static void main(String[] args) throws InterruptedException {
        Coord c = new Coord();
        Thread mover = new Thread(() -> {
            for (int i = 0; i < 1000; i++) c.move(1, 1);
        });
        Thread swapper = new Thread(() -> {
            for (int i = 0; i < 1000; i++) c.swap();
        });
        Thread reader = new Thread(() -> {
            double max = 0;
            for (int i = 0; i < 1000; i++) max = Math.max(max, c.distance());
            System.out.println("max distance " + max);
        });
        mover.start(); swapper.start(); reader.start();
        mover.join(); swapper.join(); reader.join();
        int[] p = c.get();
        System.out.println(p[0] + "," + p[1]);
    }
}
