package sensorbug;

/** Sensor/daemon: a daemon updates a reading; a controller takes a reading and acts on it in one block. */
public class Sensor {
    private final Object lock = new Object();
    private double temperature = 20.0;
    private boolean heating = false;
    private int switches = 0;
    private volatile boolean running = true;

    void sample(double t) {
        synchronized (lock) {
            temperature = t;
        }
    }

    /** BUG: decides on (temperature, heating) in one block and switches in another. */
    void control() {
        boolean turnOn, turnOff;
        synchronized (lock) {
            double t = temperature;
            turnOn = t < 18.0 && !heating;
            turnOff = t > 22.0 && heating;
        }
        if (turnOn) {
            synchronized (lock) {             // another controller may have switched meanwhile
                heating = true;
                switches++;
            }
        } else if (turnOff) {
            synchronized (lock) {
                heating = false;
                switches++;
            }
        }
    }

    String status() {
        synchronized (lock) {
            return "t=" + temperature + " heating=" + heating + " switches=" + switches;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Sensor s = new Sensor();
        Thread daemon = new Thread(() -> {
            java.util.Random r = new java.util.Random(7);
            while (s.running) {
                s.sample(15 + r.nextDouble() * 10);
                Thread.yield();
            }
        });
        daemon.setDaemon(true);
        Thread[] controllers = new Thread[2];
        for (int c = 0; c < controllers.length; c++) {
            controllers[c] = new Thread(() -> {
                for (int i = 0; i < 10000; i++) s.control();
            });
            controllers[c].start();
        }
        daemon.start();
        for (Thread c : controllers) c.join();
        s.running = false;
        daemon.join();
        System.out.println(s.status());
    }
}
