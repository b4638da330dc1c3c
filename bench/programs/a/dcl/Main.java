package dcl;

/** Lazily created singleton with correct double-checked locking (volatile). */
class Registry {
    private static volatile Registry instance;
    private int registrations;

    private Registry() { }

    static Registry get() {
        Registry r = instance;
        if (r == null) {
            synchronized (Registry.class) {
                r = instance;
                if (r == null) {
                    r = new Registry();
                    instance = r;
                }
            }
        }
        return r;
    }

    synchronized int register() { return ++registrations; }
    synchronized int count() { return registrations; }
}

class Client extends Thread {
    @Override public void run() { for (int i = 0; i < 100; i++) Registry.get().register(); }
}

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Client a = new Client(), b = new Client(), c = new Client();
        a.start(); b.start(); c.start();
        a.join(); b.join(); c.join();
        System.out.println(Registry.get().count() == 300 ? "OK" : "BUG");
    }
}
